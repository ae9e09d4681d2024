// Worker thread that reads file headers for intake (see header-scan.ts and header-scan-pool.ts).
import { parentPort } from 'node:worker_threads';
import { classifyFile, type ClassifyItem } from './classify-file.js';
import { withDropBudget } from './drop-parse-budget.js';

parentPort?.on('message', (msg: { id: number; items: ClassifyItem[]; budget?: Int32Array }) => {
  // classifyFile never throws, so every message is answered and the worker lives on.
  const results = withDropBudget(msg.budget ?? null, () => msg.items.map((item) => classifyFile(item)));
  parentPort?.postMessage({ id: msg.id, results });
});
// Up and loaded: only now does the pool give this worker files (see header-scan-pool.ts).
parentPort?.postMessage({ ready: true });
