// One cold header scan, as the first drop of a session meets it: bundled (like dist/main) and run in a
// fresh process by bench/dicom-headers.bench.ts. The time runs from just before intake() to its end, so
// it includes starting header-scan worker threads whenever intake starts them (for a drop worth them,
// or a file only a worker reads); loading the code is left out, as pydicom's import is on the other side.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { intake } from '../src-main/scans/intake.js';

async function main(): Promise<void> {
  const folder = process.argv[2] as string;
  const work = mkdtempSync(join(tmpdir(), 's2m-cold-'));
  const cpu = process.cpuUsage();
  const t = performance.now();
  const outcome = await intake([folder], { tempDir: work });
  const ms = performance.now() - t;
  // CPU time of every thread (the JIT compiles on threads of its own): steadier than wall time on a
  // busy machine, and shown beside it.
  const used = process.cpuUsage(cpu);
  rmSync(work, { recursive: true, force: true });
  const series = outcome.result.series;
  console.log(
    JSON.stringify({
      ms,
      cpuMs: (used.user + used.system) / 1000,
      series: series.length,
      slices: series[0]?.slices ?? 0,
    }),
  );
  // The worker pool is left to the process's end, as in the app.
  process.exit(0);
}

void main();
