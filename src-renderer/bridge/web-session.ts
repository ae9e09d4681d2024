/**
 * Web mode's session token, on the page's side. `scan2mesh web` prints an address with the token in
 * its fragment (#token=…), which the browser never sends to any server. The page takes it from there
 * before anything else runs, keeps it in sessionStorage (scoped to this origin, port included, and to
 * this tab; it survives a reload) and takes it out of the address bar, so that the tab's history holds
 * no token. It goes back to the app only as the X-Scan2mesh-Token header of the page's own fetches:
 * never in a cookie, which the browser would also hand to every other server on 127.0.0.1, and never
 * in an address, which lands in history and in Referer headers.
 */

const STORAGE_KEY = 'scan2mesh.session-token';
const HEADER = 'X-Scan2mesh-Token';

/** Why the page cannot reach the app: no token at all, or an address in the form older versions printed. */
export type WebSessionProblem = 'no-token' | 'outdated-address';

interface WebSession {
  token: string | null;
  problem: WebSessionProblem | null;
}

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    // Storage refused (a browser setting): the token then lives only as long as this page.
    return null;
  }
}

function takeSession(): WebSession {
  const here = new URL(window.location.href);
  const given = new URLSearchParams(here.hash.slice(1)).get('token');
  const outdated = here.searchParams.has('token');
  if (given !== null || outdated) {
    // Out of the address bar (and so out of this tab's history) before any other code can read it.
    here.hash = '';
    here.searchParams.delete('token');
    window.history.replaceState(window.history.state, '', here.pathname + here.search);
  }
  const store = storage();
  if (given) {
    store?.setItem(STORAGE_KEY, given);
    return { token: given, problem: null };
  }
  if (outdated) {
    // The old address's token is not used even when it is right: the server no longer accepts it.
    return { token: null, problem: 'outdated-address' };
  }
  const kept = store?.getItem(STORAGE_KEY) ?? null;
  return { token: kept, problem: kept ? null : 'no-token' };
}

/** In Electron the preload's bridge is there and there is no token to take. */
const session: WebSession = window.scan2mesh ? { token: null, problem: null } : takeSession();

/** What stops web mode from working in this tab, or null when it can start (and always in Electron). */
export function webSessionProblem(): WebSessionProblem | null {
  return session.problem;
}

/** The words the page shows instead of the app when it has no usable token. */
export function webSessionMessage(problem: WebSessionProblem): string {
  const what =
    problem === 'outdated-address'
      ? 'This address is from an older version of scan2mesh and no longer opens the app.'
      : 'This page was opened without the key that connects it to scan2mesh.';
  return `${what} Open the address that \`scan2mesh web\` printed in its terminal (it ends with #token=…), in this browser on this computer.`;
}

/**
 * The token was refused (the server was restarted, so its token changed): forget it, so that a reload
 * says what to do instead of failing call by call.
 */
export function forgetWebSession(): void {
  session.token = null;
  session.problem = 'no-token';
  storage()?.removeItem(STORAGE_KEY);
}

/**
 * fetch to the app that served this page, with the session token as a header. Cookies are left out:
 * the app sets none, and those other servers on this host set are none of its business.
 */
export function webFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (session.token) headers.set(HEADER, session.token);
  return fetch(path, { ...init, headers, credentials: 'omit' });
}
