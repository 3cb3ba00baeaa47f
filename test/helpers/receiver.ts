import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a webhook receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP receiver for webhooks on loopback: records every request; each path answers the statuses
 * queued in `answers` in turn (200 when none is left), or 'hang' (no answer until `close()`).
 */
export async function startReceiver() {
  const received: Received[] = [];
  const answers = new Map<string, (number | 'hang')[]>();
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      const next = answers.get(req.url ?? '')?.shift() ?? 200;
      if (next === 'hang') hanging.push(res);
      else res.writeHead(next).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answers,
    /** The requests to one path. */
    at: (path: string) => received.filter((r) => r.path === path),
    close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Asks `what` every 50 ms until `ok` holds or `ms` have passed (a busy machine is slow: 30 s by default); returns the last value either way. */
export async function waitUntil<T>(what: () => T | Promise<T>, ok: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await what();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
