import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
