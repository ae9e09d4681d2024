// Worker thread that reads file headers for intake (see header-scan.ts and header-scan-pool.ts).
import { parentPort } from 'node:worker_threads';
import { classifyFile, type ClassifyItem } from './classify-file.js';

parentPort?.on('message', (msg: { id: number; items: ClassifyItem[] }) => {
  // classifyFile never throws, so every message is answered and the worker lives on.
  parentPort?.postMessage({ id: msg.id, results: msg.items.map(classifyFile) });
});
// Up and loaded: only now does the pool give this worker files (see header-scan-pool.ts).
parentPort?.postMessage({ ready: true });
