import { describe, expect, it } from 'vitest';
import { channels, events, type Envelope } from './contract.js';
import { buildApi, callerOf, CHANNEL_NAMES, EVENT_NAMES, eventListeners } from './channels.js';

describe('the generated channel list', () => {
  it('names exactly the contract’s channels and events, in its order (else: node scripts/generate-channels.mjs)', () => {
    expect([...CHANNEL_NAMES]).toEqual(Object.keys(channels));
    expect([...EVENT_NAMES]).toEqual(Object.keys(events));
  });
});

describe('buildApi and callerOf', () => {
  it('group every channel by its prefix, and call back the same channel with the request', async () => {
    const calls: [string, unknown][] = [];
    const api = buildApi(async (channel, req) => {
      calls.push([channel, req]);
      return { ok: true, value: channel };
    });
    expect(await api.jobs.cancel({ id: 'j1' })).toEqual({ ok: true, value: 'jobs.cancel' });
    expect(calls).toEqual([['jobs.cancel', { id: 'j1' }]]);

    const call = callerOf(api);
    for (const channel of CHANNEL_NAMES) {
      const got = (await call(channel, { probe: 1 })) as Envelope<string>;
      expect(got).toEqual({ ok: true, value: channel });
    }
    expect(calls).toHaveLength(1 + CHANNEL_NAMES.length);
  });

  it('send an empty request when none is given', async () => {
    const calls: unknown[] = [];
    const api = buildApi(async (_channel, req) => calls.push(req));
    await (api.app.info as (req?: unknown) => Promise<unknown>)();
    expect(calls).toEqual([{}]);
  });

  it('callerOf refuses, in words, a channel the API object does not offer', async () => {
    const call = callerOf({} as never);
    await expect(call('jobs.list', {})).rejects.toThrow(/does not offer jobs.list/);
  });
});

describe('eventListeners', () => {
  it('passes each event to its listeners until they unsubscribe, and refuses unknown names', () => {
    const hub = eventListeners();
    const got: unknown[] = [];
    const off = hub.on('jobs.changed', (p) => got.push(p));
    hub.emit('jobs.changed', { jobs: [], paused: true });
    hub.emit('profiles.changed', {});
    hub.emit('not.an.event', {});
    off();
    hub.emit('jobs.changed', { jobs: [], paused: false });
    expect(got).toEqual([{ jobs: [], paused: true }]);
    expect(() => hub.on('nope' as 'jobs.changed', () => undefined)).toThrow(/Unknown event/);
  });
});
