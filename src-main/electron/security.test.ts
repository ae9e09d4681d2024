import { describe, expect, it, vi } from 'vitest';

// Plain objects stand in for Electron's app, session and webContents: the Electron binary is not needed.
const fake = vi.hoisted(() => ({
  appListeners: new Map<string, (...args: unknown[]) => void>(),
  sandboxEnabled: false,
  permissionRequest: undefined as
    undefined | ((wc: unknown, permission: string, callback: (granted: boolean) => void) => void),
  permissionCheck: undefined as undefined | ((...args: unknown[]) => boolean),
  beforeRequest: undefined as
    undefined | ((details: { url: string }, callback: (r: { cancel: boolean }) => void) => void),
}));

vi.mock('electron', () => ({
  app: {
    enableSandbox: () => {
      fake.sandboxEnabled = true;
    },
    on: (event: string, listener: (...args: unknown[]) => void) => fake.appListeners.set(event, listener),
    whenReady: () => Promise.resolve(),
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: (h: typeof fake.permissionRequest) => (fake.permissionRequest = h),
      setPermissionCheckHandler: (h: typeof fake.permissionCheck) => (fake.permissionCheck = h),
      webRequest: { onBeforeRequest: (h: typeof fake.beforeRequest) => (fake.beforeRequest = h) },
    },
  },
}));

const { APP_ORIGIN, hardenApp, isTrustedSender } = await import('./security.js');

function fakeContents() {
  const listeners = new Map<string, (event: { preventDefault(): void }, ...rest: unknown[]) => void>();
  let openHandler: ((details: { url: string }) => { action: string }) | undefined;
  return {
    on: (name: string, l: (event: { preventDefault(): void }) => void) => listeners.set(name, l),
    setWindowOpenHandler: (h: typeof openHandler) => (openHandler = h),
    fire(name: string, ...rest: unknown[]): boolean {
      let prevented = false;
      listeners.get(name)?.({ preventDefault: () => (prevented = true) }, ...rest);
      return prevented;
    },
    open: (url: string) => openHandler?.({ url }),
  };
}

describe('hardenApp', () => {
  hardenApp();

  it('turns the sandbox on for every renderer', () => {
    expect(fake.sandboxEnabled).toBe(true);
  });

  it('stops every navigation, redirect, webview and new window of every web contents', () => {
    const contents = fakeContents();
    fake.appListeners.get('web-contents-created')?.({}, contents);
    expect(contents.fire('will-navigate', 'https://example.com/')).toBe(true);
    expect(contents.fire('will-navigate', `${APP_ORIGIN}/index.html`)).toBe(true);
    expect(contents.fire('will-redirect', 'https://example.com/')).toBe(true);
    expect(contents.fire('will-attach-webview')).toBe(true);
    expect(contents.open('https://example.com/')).toEqual({ action: 'deny' });
  });

  it('denies every permission request and check', async () => {
    await Promise.resolve();
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read']) {
      const answers: boolean[] = [];
      fake.permissionRequest?.({}, permission, (granted) => answers.push(granted));
      expect(answers).toEqual([false]);
    }
    expect(fake.permissionCheck?.({}, 'media', APP_ORIGIN, {})).toBe(false);
  });

  it('lets requests through only to the app’s own origin and devtools', async () => {
    await Promise.resolve();
    const cancel = (url: string): boolean | undefined => {
      let answer: boolean | undefined;
      fake.beforeRequest?.({ url }, (r) => (answer = r.cancel));
      return answer;
    };
    expect(cancel(`${APP_ORIGIN}/index.html`)).toBe(false);
    expect(cancel(`${APP_ORIGIN}/files/0123456789abcdef`)).toBe(false);
    expect(cancel('devtools://devtools/bundled/inspector.html')).toBe(false);
    expect(cancel('https://example.com/track.js')).toBe(true);
    expect(cancel('app://scan2mesh.example.com/index.html')).toBe(true);
    expect(cancel('file:///etc/passwd')).toBe(true);
  });
});

describe('isTrustedSender', () => {
  const live = { isDestroyed: () => false } as unknown as Parameters<typeof isTrustedSender>[1];
  const dead = { isDestroyed: () => true } as unknown as Parameters<typeof isTrustedSender>[1];

  it('trusts the main frame of the app page only', () => {
    expect(isTrustedSender({ url: `${APP_ORIGIN}/index.html`, parent: null }, live)).toBe(true);
    expect(isTrustedSender({ url: `${APP_ORIGIN}/index.html`, parent: {} }, live)).toBe(false);
    expect(isTrustedSender({ url: 'https://example.com/', parent: null }, live)).toBe(false);
    expect(isTrustedSender({ url: 'not a url', parent: null }, live)).toBe(false);
    expect(isTrustedSender({ url: `${APP_ORIGIN}/index.html`, parent: null }, dead)).toBe(false);
    expect(isTrustedSender(null, live)).toBe(false);
    expect(isTrustedSender({ url: `${APP_ORIGIN}/index.html`, parent: null }, null)).toBe(false);
  });
});
