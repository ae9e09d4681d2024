import * as tls from 'node:tls';

/** The two calls of node:tls this needs (Node 22.19 / 24.5 and later; Electron 41 carries Node 24). */
interface CaStore {
  getCACertificates?: (type: 'default' | 'system') => string[];
  setDefaultCACertificates?: (certs: string[]) => void;
}

/**
 * Makes https trust what the operating system trusts, besides Node's own list. An organisation that
 * runs the service behind its own certificate authority installs that authority in the system's store;
 * the packaged app cannot use NODE_EXTRA_CA_CERTS instead, because the nodeOptions fuse that we turn
 * off (electron-builder.yml) also turns that variable off. Returns false where node:tls cannot do it
 * (older Node), which leaves Node's own list and NODE_EXTRA_CA_CERTS as they are.
 */
export function trustSystemCertificates(store: CaStore = tls as unknown as CaStore): boolean {
  const { getCACertificates, setDefaultCACertificates } = store;
  if (typeof getCACertificates !== 'function' || typeof setDefaultCACertificates !== 'function') return false;
  try {
    const certs = new Set([...getCACertificates('default'), ...getCACertificates('system')]);
    setDefaultCACertificates([...certs]);
    return true;
  } catch {
    // An unreadable system store must not stop the app: Node's own list still applies.
    return false;
  }
}

let trusted: boolean | undefined;

/**
 * trustSystemCertificates, once per process, called by each way out to an https address just before
 * its first TLS connection (later connections use the new default; the call changes nothing for
 * connections already made). Not at start-up: reading and parsing the system's store and Node's list
 * costs tens of milliseconds, which the commands and sessions that never leave this computer (inspect,
 * status, the local engine over loopback http) would pay for nothing.
 */
export function trustSystemCertificatesOnce(): void {
  trusted ??= trustSystemCertificates();
}
