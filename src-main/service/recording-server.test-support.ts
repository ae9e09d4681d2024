import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One request a recording server received, with its whole body. */
export interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const open: Server[] = [];

/**
 * A real http server on loopback standing in for a service or a storage: it records each request
 * (its body read whole) before `answer` answers it. `setup` may add listeners first (how it meets
 * "Expect: 100-continue"). Close them all with closeRecordingServers after each test.
 */
export async function recordingServer(
  answer: (req: Seen, res: ServerResponse) => void,
  setup?: (server: Server) => void,
): Promise<{ origin: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(s);
      answer(s, res);
    });
  });
  setup?.(server);
  open.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

export async function closeRecordingServers(): Promise<void> {
  await Promise.all(
    open.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          s.close(() => r());
          s.closeAllConnections();
        }),
    ),
  );
}
