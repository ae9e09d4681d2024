// Lean start (issue 14, part 5), on the built app (`npm run build` first; the bench builds it when
// dist/ is missing):
// - `scan2mesh --help`: CPU seconds (user + system) of the whole process, goal <= 0.25 s, against
//   the anchor `node -e 0` (the runtime's own start) measured alternately in the same run.
// - Web mode's first page: the longest main-thread task, running script (Long Tasks API) or
//   rendering a frame (Long Animation Frames), buffered from navigation start until the app shell
//   is on screen and the page is idle, goal <= 100 ms. Each round gets a
//   fresh Chromium and a fresh `scan2mesh web` process with its own data folder, as a first start has;
//   the page itself reports when the shell is shown (PAGE_PROBE), so no harness script runs inside,
//   and Chromium is driven over a bare DevTools pipe with only the Page domain on (see cdp-pipe.ts).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, chromiumPath } from '../e2e/chromium.js';
import { openPipePage, type PipePage } from './cdp-pipe.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'main', 'cli.cjs');
const HELP_GOAL_S = 0.25;
const PAGE_TASK_GOAL_MS = 100;
const ROUNDS = Number(process.argv[2] ?? 5);
/**
 * A freshly launched Chromium preloads its own WebUI (the omnibox popup, a renderer process of its
 * own) in the first second: some 0.5 s of CPU taken from the page on a 2-core machine, which the
 * app (in Electron, or in a browser already running) never competes with.
 */
const BENCH_CHROMIUM_ARGS = [...CHROMIUM_ARGS, '--disable-features=PreloadTopChromeWebUI'];

/** CPU seconds of one child process, from bash's `times` (children's user and system time). */
function childCpuSeconds(args: string[]): number {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('bash', ['-c', `${quoted} >/dev/null 2>&1; times`], { encoding: 'utf8' });
  // `times` prints two lines: the shell's own, then its children's "XmY.YYYs XmY.YYYs".
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (parts.length !== 2) throw new Error(`could not read CPU times from: ${r.stdout}`);
  return (parts[0] ?? 0) + (parts[1] ?? 0);
}

async function startWeb(dataDir: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [CLI, 'web'], {
    env: { ...process.env, SCAN2MESH_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((ok, fail) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+)/.exec(out);
      if (m) ok(m[1] as string);
    });
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => fail(new Error(`web mode exited with ${code}: ${out}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

interface PageResult {
  /** The longest of both kinds below. */
  longestTaskMs: number;
  /** From the Long Tasks API: tasks that ran script, a frame's rendering among them when it ran animation-frame callbacks. */
  longestLongTaskMs: number;
  /** Rendering updates: style, layout and paint of a frame (Long Animation Frames, renderStart on). */
  longestRenderMs: number;
  /**
   * Long tasks and long frame renderings over 50 ms, counted apart: a frame that ran
   * animation-frame callbacks is in both lists, so their sum would count it twice.
   */
  longTasksOver50: number;
  rendersOver50: number;
  shellVisibleMs: number;
}

/**
 * Runs in the page before its own scripts. It records:
 * - long tasks from the start. Chromium's Long Tasks API leaves out a frame's rendering update
 *   (style, layout, paint) unless the frame ran animation-frame callbacks, yet it is a main-thread
 *   task like any other, and the first page's first layout is among its longest. So the probe also
 *   records the rendering part of each long animation frame;
 * - when the app's navigation is first on screen: the frame after it enters the page. It only looks
 *   for the element. Asking whether it is displayed (getClientRects, getComputedStyle) from a
 *   mutation callback would force that first layout inside React's task, which is not where the app
 *   has it.
 * The page reports this itself, so the harness runs no script inside the window measured
 * (Playwright's locators inject one of some 300 KB, whose compile would be a long task of the
 * harness's own), and the page is driven over a bare DevTools pipe (cdp-pipe.ts) rather than
 * Playwright, whose Runtime domain adds work to it.
 */
const PAGE_PROBE = `
window.__tasks = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__tasks.push(e.duration); })
  .observe({ type: 'longtask', buffered: true });
window.__renders = [];
new PerformanceObserver((l) => {
  for (const e of l.getEntries()) if (e.renderStart > 0) window.__renders.push(e.startTime + e.duration - e.renderStart);
}).observe({ type: 'long-animation-frame', buffered: true });
window.__shell = new Promise((resolve) => {
  const seen = new MutationObserver(() => {
    if (!document.querySelector('nav, [role="navigation"]')) return;
    seen.disconnect();
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now())));
  });
  seen.observe(document, { childList: true, subtree: true });
});
`;

/**
 * Then the first data requests and what they render: as Playwright's "networkidle" (no request for
 * 500 ms), read from the page's own resource timing, and 500 ms more for the renders they cause.
 */
async function networkIdle(page: PipePage): Promise<void> {
  let seen = -1;
  let quietSince = performance.now();
  for (;;) {
    const count = (await page.evaluate("performance.getEntriesByType('resource').length")) as number;
    if (count !== seen) [seen, quietSince] = [count, performance.now()];
    else if (performance.now() - quietSince >= 500) break;
    await pause(100);
  }
  await pause(500);
}

async function firstPage(): Promise<PageResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'scan2mesh-start-bench-'));
  const web = await startWeb(dataDir);
  const page = await openPipePage(chromiumPath(), BENCH_CHROMIUM_ARGS, PAGE_PROBE, 1440, 900);
  try {
    const loaded = page.event('Page.loadEventFired');
    await page.navigate(web.url);
    await loaded;
    const shellVisibleMs = (await page.evaluate('window.__shell')) as number;
    await networkIdle(page);
    const scripts = (await page.evaluate('window.__tasks')) as number[];
    const renders = (await page.evaluate('window.__renders')) as number[];
    return {
      longestTaskMs: Math.round(Math.max(0, ...scripts, ...renders)),
      longestLongTaskMs: Math.round(Math.max(0, ...scripts)),
      longestRenderMs: Math.round(Math.max(0, ...renders)),
      longTasksOver50: scripts.filter((t) => t > 50).length,
      rendersOver50: renders.filter((t) => t > 50).length,
      shellVisibleMs: Math.round(shellVisibleMs),
    };
  } finally {
    await page.close();
    web.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

async function main(): Promise<void> {
  if (!existsSync(CLI)) {
    console.log('dist/ is missing: building the app first (npm run build)');
    const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('npm run build failed');
  }
  const load = (): number => Number((loadavg()[0] ?? 0).toFixed(2));
  console.log(`machine: ${cpus().length} cores, load average ${load()}`);

  const help: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    bare.push(childCpuSeconds([process.execPath, '-e', '0']));
    help.push(childCpuSeconds([process.execPath, CLI, '--help']));
  }
  const helpCpuS = median(help);
  const nodeCpuS = median(bare);
  console.log(
    `scan2mesh --help: ${helpCpuS.toFixed(3)} s CPU (median of ${ROUNDS}); node -e 0: ${nodeCpuS.toFixed(3)} s; ` +
      `${(helpCpuS / nodeCpuS).toFixed(2)}x the bare runtime; goal <= ${HELP_GOAL_S} s: ${helpCpuS <= HELP_GOAL_S ? 'met' : 'NOT met'}`,
  );

  const pages: PageResult[] = [];
  for (let i = 0; i < ROUNDS; i++) pages.push(await firstPage());
  const longest = median(pages.map((p) => p.longestTaskMs));
  console.log(
    `web mode first page: longest main-thread task ${longest} ms (median of ${pages.length}: ` +
      `${pages.map((p) => p.longestTaskMs).join(', ')}; Long Tasks API ${pages.map((p) => p.longestLongTaskMs).join(', ')}, ` +
      `frame rendering ${pages.map((p) => p.longestRenderMs).join(', ')}; over 50 ms per round: ${pages.map((p) => `${p.longTasksOver50} long tasks, ${p.rendersOver50} renderings`).join('; ')}), ` +
      `shell visible at ${median(pages.map((p) => p.shellVisibleMs))} ms; ` +
      `goal <= ${PAGE_TASK_GOAL_MS} ms: ${longest <= PAGE_TASK_GOAL_MS ? 'met' : 'NOT met'}`,
  );
  console.log(
    JSON.stringify({
      bench: 'start',
      helpCpuS: Number(helpCpuS.toFixed(3)),
      nodeCpuS: Number(nodeCpuS.toFixed(3)),
      helpGoalS: HELP_GOAL_S,
      helpRatioToGoal: Number((helpCpuS / HELP_GOAL_S).toFixed(2)),
      firstPageLongestTaskMs: longest,
      firstPageLongestLongTaskMs: median(pages.map((p) => p.longestLongTaskMs)),
      firstPageLongestRenderMs: median(pages.map((p) => p.longestRenderMs)),
      firstPageTaskGoalMs: PAGE_TASK_GOAL_MS,
      firstPageRatioToGoal: Number((longest / PAGE_TASK_GOAL_MS).toFixed(2)),
      loadAverage: load(),
    }),
  );
}

await main();
