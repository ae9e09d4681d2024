import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './launch-app';

export interface EngineProcess {
  baseUrl: string;
  authUrl: string;
  audience: string;
  clientId: string;
  stop(): Promise<void>;
}

/** `scan2mesh engine --json`: a local engine of its own, as another computer's service would be. */
export async function startEngineProcess(): Promise<EngineProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'scan2mesh-e2e-engine-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, 'dist', 'main', 'cli.cjs'), 'engine', '--json', '--data-dir', join(dir, 'jobs')],
    { env: { ...process.env, SCAN2MESH_DATA_DIR: dir, HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  const info = await new Promise<Omit<EngineProcess, 'stop'>>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the engine did not start: ${out}`)), 20_000);
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      const line = out.split('\n').find((l) => l.trim().startsWith('{'));
      if (line) {
        clearTimeout(timer);
        ok(JSON.parse(line) as Omit<EngineProcess, 'stop'>);
      }
    });
    child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => fail(new Error(`the engine exited with ${code}: ${out}`)));
  });
  return {
    ...info,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
