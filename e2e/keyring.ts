import { test as appTest } from './fixtures';
import { startPrivateKeyring, type PrivateKeyring } from '../src-main/secrets/private-keyring.test-support';

export { expect, snap, FIXTURES } from './fixtures';

/**
 * The app fixture with a real keychain of its own, started once per worker before any app: this
 * process's DBUS_SESSION_BUS_ADDRESS points at it, and launchApp passes the environment on to the app.
 */
export const test = appTest.extend<object, { keyring: PrivateKeyring }>({
  keyring: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured
    async ({}, use) => {
      const keyring = startPrivateKeyring();
      const before = process.env.DBUS_SESSION_BUS_ADDRESS;
      process.env.DBUS_SESSION_BUS_ADDRESS = keyring.address;
      await use(keyring);
      if (before === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = before;
      keyring.stop();
    },
    { scope: 'worker', auto: true },
  ],
});
