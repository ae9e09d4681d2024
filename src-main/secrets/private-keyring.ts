import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real GNOME keyring on a private D-Bus session bus, for tests and for headless machines:
 * starts dbus-daemon and an unlocked gnome-keyring-daemon, and points DBUS_SESSION_BUS_ADDRESS at them.
 * Must run before keytar first talks to D-Bus (libsecret reads the address once).
 */
export interface PrivateKeyring {
  address: string;
  stop(): void;
}

export function startPrivateKeyring(): PrivateKeyring {
  const home = mkdtempSync(join(tmpdir(), 'scan2mesh-keyring-'));
  const out = execFileSync('dbus-daemon', ['--session', '--fork', '--print-address=1', '--print-pid=1'], {
    encoding: 'utf8',
  });
  const [address, pidText] = out.trim().split('\n');
  if (!address || !pidText) throw new Error(`dbus-daemon printed no address: ${out}`);
  const dbusPid = Number(pidText);
  const env = {
    ...process.env,
    DBUS_SESSION_BUS_ADDRESS: address,
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
  };
  // --unlock reads the login password from stdin; the daemon forks and prints its environment.
  const keyringOut = execFileSync(
    'gnome-keyring-daemon',
    ['--unlock', '--components=secrets', '--daemonize'],
    {
      input: 'scan2mesh-test\n',
      env,
      encoding: 'utf8',
    },
  );
  const keyringPid = Number(/GNOME_KEYRING_PID=(\d+)/.exec(keyringOut)?.[1] ?? 0);
  waitUntilUnlocked(env);
  process.env.DBUS_SESSION_BUS_ADDRESS = address;
  return {
    address,
    stop() {
      for (const pid of [keyringPid, dbusPid]) {
        try {
          if (pid) process.kill(pid);
        } catch {
          // already gone
        }
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * The daemon answers on the bus before its login collection exists; a secret stored in that moment
 * lands in a new, locked collection. So wait until the login collection reports itself unlocked.
 */
function waitUntilUnlocked(env: NodeJS.ProcessEnv): void {
  const deadline = Date.now() + 10_000;
  let last = '';
  while (Date.now() < deadline) {
    try {
      last = execFileSync(
        'dbus-send',
        [
          '--session',
          '--print-reply',
          '--dest=org.freedesktop.secrets',
          '/org/freedesktop/secrets/collection/login',
          'org.freedesktop.DBus.Properties.Get',
          'string:org.freedesktop.Secret.Collection',
          'string:Locked',
        ],
        { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      if (/boolean false/.test(last)) return;
    } catch (e) {
      last = String(e);
    }
    execFileSync('sleep', ['0.1']);
  }
  throw new Error(`the private keyring did not unlock its login collection: ${last}`);
}

/** True when the binaries are installed (the CI script installs them). */
export function keyringAvailable(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v dbus-daemon && command -v gnome-keyring-daemon'], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}
