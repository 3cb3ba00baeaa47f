import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from './db/database.js';
import type { BlobStore } from './storage/index.js';

/**
 * `/healthz`: the process answers (liveness). `/readyz`: the database and the blob storage answer
 * (readiness: a load balancer sends traffic only to ready nodes). Neither is under /api/, so neither
 * is audited, and neither needs a token.
 */
export async function healthRoutes(app: FastifyInstance, deps: { db: Db; blobs: BlobStore }) {
  app.get('/healthz', async () => ({ ok: true }));

  app.get('/readyz', async (_request, reply) => {
    const checks = await Promise.allSettled([sql`select 1`.execute(deps.db.kysely), deps.blobs.check()]);
    const [database, storage] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unavailable'));
    const ready = database === 'ok' && storage === 'ok';
    return reply.code(ready ? 200 : 503).send({ ok: ready, checks: { database, storage } });
  });
}
