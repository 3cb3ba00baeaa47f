/**
 * The rungs of bench/ladder.ts in one process, on the benchmark workspace: a bare Fastify instance (no logger, no
 * plugins) whose routes do a known amount of work, to say what the ratio targets leave for our own code.
 *
 * - `GET /`: a fixed JSON object (the ceiling, as bench/lib/ceiling-server.ts answers it);
 * - `GET /spin?us=N`: the same after N µs of busy work: what a server that spends N µs of its own per request
 *   answers beside the load generator;
 * - the floors, each what a target's operation must do: its service call and the audit record every API call gets
 *   (queued for a read, in the write's transaction for a write), and nothing else (no envelope, validation, ETag,
 *   cache, metrics or headers of ours): `GET /floor/me` (`TokensService.authenticate` of the Authorization
 *   header), `GET /floor/card?actor=K&id=N` (`ItemsService.getItemCard` as an actor authenticated at start),
 *   `PATCH /floor/status` (`ItemWritesService.setStatus`: lock, access check, history, audit, event in a
 *   group-committed transaction) and `POST /floor/comment` (`CommentsService.addComment`; FTS5 indexing is not
 *   started, so its cost is not counted).
 *
 * Run as a child process: node --import tsx bench/lib/ladder-server.ts PORT (DATABASE_URL etc. in the environment).
 */
import Fastify, { type FastifyRequest } from 'fastify';
import { loadConfig } from '../../src/shared/config.js';
import { createContext } from '../../src/composition/context.js';
import type { Principal } from '../../src/features/tokens/tokens.service.js';
import type { ItemStatus } from '../../src/domain/values.js';
import type { NewAuditRecord } from '../../src/db/tables.js';

const port = Number(process.argv[2] ?? 0);
const tokens = (process.env.LADDER_TOKENS ?? '').split(',').filter(Boolean);
const ctx = await createContext(loadConfig());
// The actors of the floors, authenticated once: their requests name them by index.
const actors: Principal['user'][] = [];
for (const token of tokens) actors.push((await ctx.tokens.authenticate(token, '127.0.0.1')).user);
const actorOf = (key: unknown) => {
  const actor = actors[Number(key)];
  if (!actor) throw new Error(`no actor ${String(key)}`);
  return { ...actor };
};

/** The audit record of a request, with the fields of src/http/audit-record.ts (that one reads our request state). */
const audit = (request: FastifyRequest, userId: number, tokenId: number | null): NewAuditRecord => {
  const [path = '', query = ''] = request.url.split('?');
  return {
    request_id: request.id,
    at: new Date().toISOString(),
    token_id: tokenId,
    user_id: userId,
    method: request.method,
    path,
    query,
    status: 200,
    error_code: null,
    ip: request.ip,
    user_agent: null,
    duration_ms: 0,
    entity_type: null,
    entity_id: null,
    client_request_id: null,
  };
};

const BODY = { hello: 'world' };
const app = Fastify({ logger: false });
app.get('/', async () => BODY);
app.get<{ Querystring: { us: string } }>('/spin', async (request) => {
  const end = process.hrtime.bigint() + BigInt(Number(request.query.us) * 1000);
  while (process.hrtime.bigint() < end);
  return BODY;
});
app.get('/floor/me', async (request) => {
  const principal = await ctx.tokens.authenticate(request.headers.authorization?.slice('Bearer '.length) ?? '', request.ip);
  ctx.audit.recordLater(audit(request, principal.user.id, principal.token.id));
  return { user: principal.user, token: principal.token };
});
app.get<{ Querystring: { actor: string; id: string } }>('/floor/card', async (request) => {
  const actor = actorOf(request.query.actor);
  const card = await ctx.items.getItemCard(actor, Number(request.query.id));
  ctx.audit.recordLater(audit(request, actor.id, null));
  return card;
});
app.patch<{ Body: { actor: number; id: number; status: ItemStatus } }>('/floor/status', (request) => {
  const actor = actorOf(request.body.actor);
  return ctx.itemWrites.setStatus(actor, request.body.id, request.body.status, () => audit(request, actor.id, null));
});
app.post<{ Body: { actor: number; item_id: number; text: string } }>('/floor/comment', (request) => {
  const actor = actorOf(request.body.actor);
  return ctx.comments.addComment(actor, request.body.item_id, { text: request.body.text }, () => audit(request, actor.id, null));
});
await app.listen({ host: '127.0.0.1', port });
const stop = () => void app.close().then(() => ctx.close().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
