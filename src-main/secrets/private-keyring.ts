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

/**
 * The keyring for tests: the session's own when it has an unlocked one (CI runs the suite inside
 * dbus-run-session with an unlocked gnome-keyring), else a private one. Tests use service names of
 * their own, so sharing the session's keyring never touches anyone's entries.
 */
export function ensureKeyring(): PrivateKeyring {
  const address = process.env.DBUS_SESSION_BUS_ADDRESS;
  if (address && loginUnlocked(process.env)) return { address, stop() {} };
  return withStartLock(startPrivateKeyring);
}

/**
 * Two gnome-keyring daemons starting at the same moment (two test files in parallel) leave one of the
 * login collections locked; starting them one after the other does not.
 */
function withStartLock<T>(fn: () => T): T {
  const lock = join(tmpdir(), 'scan2mesh-keyring-start.lock');
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      execFileSync('sleep', ['0.05']);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export function startPrivateKeyring(): PrivateKeyring {
  const home = mkdtempSync(join(tmpdir(), 'scan2mesh-keyring-'));
  const out = execFileSync('dbus-daemon', ['--session', '--fork', '--print-address=1', '--print-pid=1'], {
    encoding: 'utf8',
  });
  const [address, pidText] = out.trim().split('\n');
  if (!address || !pidText) throw new Error(`dbus-daemon printed no address: ${out}`);
  const dbusPid = Number(pidText);
  // Its own runtime folder too: gnome-keyring keeps its control socket there, and two test files starting
  // keyrings at once (or the CI session's own keyring) must not find each other's.
  const runtimeDir = join(home, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DBUS_SESSION_BUS_ADDRESS: address,
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_RUNTIME_DIR: runtimeDir,
  };
  delete env.GNOME_KEYRING_CONTROL;
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
  while (Date.now() < deadline) {
    if (loginUnlocked(env)) return;
    execFileSync('sleep', ['0.1']);
  }
  throw new Error('the private keyring did not unlock its login collection');
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
