// Lean start (issue 14, part 5), on the built app (`npm run build` first; the bench builds it when
// dist/ is missing):
// - `scan2mesh --help`: CPU seconds (user + system) of the whole process, goal <= 0.25 s, against
//   the anchor `node -e 0` (the runtime's own start) measured alternately in the same run.
// - Web mode's first page: the longest main-thread task (Long Tasks API, buffered from navigation
//   start) until the app shell is on screen and the page is idle, goal <= 100 ms. Each round gets a
//   fresh Chromium and a fresh `scan2mesh web` process with its own data folder, as a first start has;
//   the page itself reports when the shell is shown (PAGE_PROBE), so no harness script runs inside,
//   and Chromium is driven over a bare DevTools pipe with only the Page domain on (see cdp-pipe.ts).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, chromiumPath } from '../e2e/chromium.js';
import { openPipePage } from './cdp-pipe.js';

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
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(out);
      if (m) ok(m[1] as string);
    });
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => fail(new Error(`web mode exited with ${code}: ${out}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

interface PageResult {
  longestTaskMs: number;
  tasksOver50: number;
  shellVisibleMs: number;
}

/**
 * Runs in the page before its own scripts: records long tasks from the start, and when the app's
 * navigation landmark is first on screen (the frame after it appears). The page reports this itself,
 * so the harness runs no script inside the window measured (Playwright's locators inject one of some
 * 300 KB, whose compile would be a long task of the harness's own), and the page is driven over a
 * bare DevTools pipe (cdp-pipe.ts) rather than Playwright, whose Runtime domain adds work to it.
 */
const PAGE_PROBE = `
window.__tasks = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__tasks.push(e.duration); })
  .observe({ type: 'longtask', buffered: true });
window.__shell = new Promise((resolve) => {
  const shown = () => [...document.querySelectorAll('nav, [role="navigation"]')]
    .some((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden');
  const seen = new MutationObserver(() => {
    if (!shown()) return;
    seen.disconnect();
    requestAnimationFrame(() => resolve(performance.now()));
  });
  seen.observe(document, { childList: true, subtree: true });
});
`;

async function firstPage(): Promise<PageResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'scan2mesh-start-bench-'));
  const web = await startWeb(dataDir);
  const page = await openPipePage(chromiumPath(), BENCH_CHROMIUM_ARGS, PAGE_PROBE, 1440, 900);
  try {
    const loaded = page.event('Page.loadEventFired');
    await page.navigate(web.url);
    await loaded;
    const shellVisibleMs = (await page.evaluate('window.__shell')) as number;
    // Then the first data requests and their renders, as Playwright's "networkidle" and 500 ms gave.
    await new Promise((r) => setTimeout(r, 1500));
    const tasks = (await page.evaluate('window.__tasks')) as number[];
    return {
      longestTaskMs: Math.round(Math.max(0, ...tasks)),
      tasksOver50: tasks.filter((t) => t > 50).length,
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
      `${pages.map((p) => p.longestTaskMs).join(', ')}; tasks over 50 ms per round: ${pages.map((p) => p.tasksOver50).join(', ')}), ` +
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
      firstPageTaskGoalMs: PAGE_TASK_GOAL_MS,
      firstPageRatioToGoal: Number((longest / PAGE_TASK_GOAL_MS).toFixed(2)),
      loadAverage: load(),
    }),
  );
}

await main();
