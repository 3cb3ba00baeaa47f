/**
 * The ceilings of the benchmark: what the HTTP stack alone answers on this machine, in the same run.
 * `fastify`: a bare Fastify instance (no logger) answering a fixed JSON object; `http`: bare node:http;
 * `static`: a bare Fastify instance serving the files of DIR with @fastify/static (its defaults: ETag, 304).
 * Run as a child process: node --import tsx bench/lib/ceiling-server.ts fastify|http|static PORT [DIR]
 */
import { createServer } from 'node:http';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';

const kind = process.argv[2];
const port = Number(process.argv[3] ?? 0);
const BODY = { hello: 'world' };

if (kind === 'fastify') {
  const app = Fastify({ logger: false });
  app.get('/', async () => BODY);
  await app.listen({ host: '127.0.0.1', port });
} else if (kind === 'static') {
  const app = Fastify({ logger: false });
  await app.register(fastifyStatic, { root: process.argv[4]! });
  app.get('/', async () => BODY);
  await app.listen({ host: '127.0.0.1', port });
} else if (kind === 'http') {
  const payload = JSON.stringify(BODY);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
} else {
  process.stderr.write('usage: ceiling-server.ts fastify|http|static PORT [DIR]\n');
  process.exit(2);
}
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
