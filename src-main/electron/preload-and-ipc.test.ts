import { mkdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { CHANNEL_NAMES, EVENT_NAMES } from '../../src-shared/channels.js';
import type { RendererBridge } from '../../src-shared/contract.js';
import { EventBus } from '../app/event-bus.js';
import type { Core } from '../app/core.js';

// Plain objects stand in for ipcMain, ipcRenderer, contextBridge, BrowserWindow and webContents.
type Handler = (event: unknown, payload: unknown) => Promise<unknown>;
const fake = vi.hoisted(() => ({
  handlers: new Map<string, Handler>(),
  invoked: [] as { channel: string; payload: unknown }[],
  rendererListeners: new Map<string, (event: unknown, ...args: unknown[]) => void>(),
  exposed: new Map<string, unknown>(),
}));

vi.mock('electron', () => ({
  ipcMain: {
    handle: (channel: string, h: Handler) => {
      if (fake.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      fake.handlers.set(channel, h);
    },
    removeHandler: (channel: string) => fake.handlers.delete(channel),
  },
  ipcRenderer: {
    invoke: async (channel: string, payload: unknown) => {
      fake.invoked.push({ channel, payload });
      return { ok: true, value: [] };
    },
    on: (channel: string, l: (event: unknown, ...args: unknown[]) => void) =>
      fake.rendererListeners.set(channel, l),
  },
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => fake.exposed.set(key, api) },
  webUtils: { getPathForFile: (f: { path?: string }) => f.path ?? '' },
}));

const { attachIpc } = await import('./ipc-transport.js');
const { IPC_EVENT_CHANNEL: EVENT_CHANNEL, IPC_GRANT_DROPPED_CHANNEL: GRANT_DROPPED_CHANNEL } =
  await import('../../src-shared/channels.js');
const { APP_ORIGIN } = await import('./security.js');
await import('./preload.entry.js');
const bridge = fake.exposed.get('scan2mesh') as RendererBridge<{ path?: string }>;

function fakeWindow() {
  const sent: unknown[][] = [];
  const webContents = { isDestroyed: () => false, send: (...args: unknown[]) => sent.push(args) };
  return { webContents, isDestroyed: () => false, sent };
}

function fakeCore() {
  const dispatched: string[] = [];
  const warnings: string[] = [];
  const core = {
    bus: new EventBus(),
    logger: { warn: (msg: string) => warnings.push(msg) },
    dispatch: async (channel: string) => {
      dispatched.push(channel);
      return { ok: true, value: {} };
    },
    scanGrants: { grant: (path: string) => ({ id: 'g'.repeat(16), name: path }) },
  };
  return { core: core as unknown as Core, dispatched, warnings };
}

describe('the preload', () => {
  it('exposes the bridge on window.scan2mesh and nothing else: no ipcRenderer, no generic invoke', () => {
    expect([...fake.exposed.keys()]).toEqual(['scan2mesh']);
    expect(Object.keys(bridge).sort()).toEqual(['api', 'grantsForFiles', 'on', 'transport']);
    expect(bridge.transport).toBe('electron');
  });

  it("offers exactly the contract's channels, each calling its own channel", async () => {
    const api = bridge.api as unknown as Record<string, Record<string, (req: unknown) => Promise<unknown>>>;
    const offered = Object.entries(api).flatMap(([group, methods]) =>
      Object.keys(methods).map((m) => `${group}.${m}`),
    );
    expect(offered.sort()).toEqual([...CHANNEL_NAMES].sort());
    for (const channel of CHANNEL_NAMES) {
      const [group, method] = channel.split('.') as [string, string];
      fake.invoked.length = 0;
      await api[group]![method]!({ probe: channel });
      expect(fake.invoked).toEqual([{ channel, payload: { probe: channel } }]);
    }
  });

  it("listens on the main process's event channel and passes on only the contract's events", () => {
    expect([...fake.rendererListeners.keys()]).toEqual([EVENT_CHANNEL]);
    const got: unknown[] = [];
    const off = bridge.on('jobs.changed', (p) => got.push(p));
    fake.rendererListeners.get(EVENT_CHANNEL)?.({}, 'jobs.changed', { jobs: [], paused: true });
    fake.rendererListeners.get(EVENT_CHANNEL)?.({}, 'profiles.changed', {});
    off();
    fake.rendererListeners.get(EVENT_CHANNEL)?.({}, 'jobs.changed', { jobs: [], paused: false });
    expect(got).toEqual([{ jobs: [], paused: true }]);
    expect(EVENT_NAMES).toContain('jobs.changed');
    expect(() => bridge.on('nope' as 'jobs.changed', () => undefined)).toThrow();
  });

  it('calls only channels that the main process handles', async () => {
    const { core } = fakeCore();
    const detach = attachIpc(core, () => null);
    fake.invoked.length = 0;
    await bridge.grantsForFiles([{ path: '/tmp/scan.zip' }, {}]);
    for (const { channel } of fake.invoked) expect(fake.handlers.has(channel), channel).toBe(true);
    for (const channel of CHANNEL_NAMES) expect(fake.handlers.has(channel), channel).toBe(true);
    detach();
    expect(fake.handlers.size).toBe(0);
  });
});

describe('the IPC transport', () => {
  const appFrame = { url: `${APP_ORIGIN}/index.html`, parent: null };

  it('dispatches calls from the app window’s main frame', async () => {
    const win = fakeWindow();
    const { core, dispatched } = fakeCore();
    const detach = attachIpc(core, () => win as never);
    const r = await fake.handlers.get('app.info')?.({ sender: win.webContents, senderFrame: appFrame }, {});
    expect(r).toEqual({ ok: true, value: {} });
    expect(dispatched).toEqual(['app.info']);
    detach();
  });

  it('refuses calls from another web contents, a sub-frame, a foreign page or when no window is open', async () => {
    const win = fakeWindow();
    const other = fakeWindow();
    const { core, dispatched, warnings } = fakeCore();
    let current: ReturnType<typeof fakeWindow> | null = win;
    const detach = attachIpc(core, () => current as never);
    const call = (event: unknown) => fake.handlers.get('jobs.list')?.(event, {});
    const refused = {
      ok: false,
      error: { code: 'bad-request', message: 'Refused: not sent by the app window.' },
    };
    expect(await call({ sender: other.webContents, senderFrame: appFrame })).toEqual(refused);
    expect(await call({ sender: win.webContents, senderFrame: { ...appFrame, parent: {} } })).toEqual(
      refused,
    );
    expect(
      await call({ sender: win.webContents, senderFrame: { url: 'https://example.com/', parent: null } }),
    ).toEqual(refused);
    current = null;
    expect(await call({ sender: win.webContents, senderFrame: appFrame })).toEqual(refused);
    expect(dispatched).toEqual([]);
    expect(warnings).toHaveLength(4);
    detach();
  });

  it('grants dropped paths, but never a system folder, a hidden folder of the home folder or the whole disk', async () => {
    const win = fakeWindow();
    const { core } = fakeCore();
    const detach = attachIpc(core, () => win as never);
    const grant = (paths: string[]) =>
      fake.handlers.get(GRANT_DROPPED_CHANNEL)?.({ sender: win.webContents, senderFrame: appFrame }, paths);
    expect(await grant([tmpdir()])).toMatchObject({ ok: true, value: [{ name: tmpdir() }] });
    // What a taken-over page would ask for: the preload never sends such paths from a real drop.
    const hidden = join(homedir(), `.scan2mesh-test-${process.pid}`);
    mkdirSync(hidden, { recursive: true });
    try {
      for (const path of ['/etc', hidden, homedir(), '/'])
        expect(await grant([tmpdir(), path]), path).toMatchObject({
          ok: false,
          error: { code: 'bad-request', message: expect.stringContaining('not read') as unknown },
        });
    } finally {
      rmSync(hidden, { recursive: true, force: true });
      detach();
    }
  });

  it("sends the core's events to the window, checked against the contract", () => {
    const win = fakeWindow();
    const { core } = fakeCore();
    const detach = attachIpc(core, () => win as never);
    core.bus.emit('jobs.changed', { jobs: [], paused: false });
    expect(win.sent).toEqual([[EVENT_CHANNEL, 'jobs.changed', { jobs: [], paused: false }]]);
    detach();
    core.bus.emit('jobs.changed', { jobs: [], paused: true });
    expect(win.sent).toHaveLength(1);
  });
});
