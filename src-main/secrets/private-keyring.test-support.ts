import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real GNOME keyring on a private D-Bus session bus, for tests and headless machines: the same
 * libsecret path the app takes on a Linux desktop.
 */
export interface PrivateKeyring {
  address: string;
  stop(): void;
}

/**
 * The keyring for tests: the session's own when it has an unlocked one (CI runs the suite inside
 * dbus-run-session with an unlocked gnome-keyring), else a private one. Tests use service names of
 * their own, so sharing the session's keyring never touches anyone's entries.
 */
export function ensureKeyring(): PrivateKeyring {
  const address = process.env.DBUS_SESSION_BUS_ADDRESS;
  if (address && loginUnlocked(process.env)) return { address, stop() {} };
  const keyring = startPrivateKeyring();
  process.env.DBUS_SESSION_BUS_ADDRESS = keyring.address;
  return keyring;
}

/**
 * Starts dbus-daemon and an unlocked gnome-keyring-daemon in a throw-away HOME. The bus itself runs with
 * that HOME: when a client asks for the secrets service before our daemon has claimed its name, D-Bus
 * activates one on its own, and with the user's HOME that one would open the user's (locked) keyring.
 */
export function startPrivateKeyring(): PrivateKeyring {
  const home = mkdtempSync(join(tmpdir(), 'scan2mesh-keyring-'));
  const runtimeDir = join(home, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_RUNTIME_DIR: runtimeDir,
  };
  delete env.GNOME_KEYRING_CONTROL;
  const stop = (): void => {
    // Every process started for this HOME, including daemons D-Bus activated by itself.
    for (const pid of processesWithHome(home)) {
      try {
        process.kill(pid);
      } catch {
        // already gone
      }
    }
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const [address] = execFileSync('dbus-daemon', ['--session', '--fork', '--print-address=1'], {
      env,
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    if (!address) throw new Error('dbus-daemon printed no address');
    const busEnv = { ...env, DBUS_SESSION_BUS_ADDRESS: address };
    // --unlock reads the login password from stdin; a fresh HOME means a fresh login keyring with it.
    execFileSync('gnome-keyring-daemon', ['--unlock', '--components=secrets', '--daemonize'], {
      input: 'scan2mesh-test\n',
      env: busEnv,
      encoding: 'utf8',
    });
    waitUntilUnlocked(busEnv);
    return { address, stop };
  } catch (e) {
    stop();
    throw e;
  }
}

function processesWithHome(home: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`HOME=${home}`))
        out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** The daemon answers on the bus before its login collection exists; wait until it is there and unlocked. */
function waitUntilUnlocked(env: NodeJS.ProcessEnv): void {
  // Generous: on a loaded two-core machine the daemon can take seconds to create its login collection.
  const deadline = Date.now() + 30_000;
  while (!loginUnlocked(env)) {
    if (Date.now() > deadline) throw new Error('the private keyring did not unlock its login collection');
    execFileSync('sleep', ['0.1']);
  }
}

function loginUnlocked(env: NodeJS.ProcessEnv): boolean {
  try {
    const reply = execFileSync(
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
      { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 },
    );
    return /boolean false/.test(reply);
  } catch {
    return false;
  }
}

/** Said in the title of a test skipped for want of a keyring. */
export const NO_KEYRING_REASON =
  ' (skipped: dbus-daemon or gnome-keyring-daemon is not installed; .ci/run installs them)';

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
