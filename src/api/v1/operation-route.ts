import multipart from '@fastify/multipart';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingImage } from '../../features/items/index.js';
import { unauthorized } from '../../shared/errors.js';
import { auditRecord } from '../../http/audit-record.js';
import type { ResponseCache } from '../../features/caches/response-cache.js';
import type { AuditService } from '../../features/audit/audit.service.js';
import type { Principal } from '../../features/tokens/tokens.service.js';
import { SerializedData } from '../../features/offload/serialized-data.js';
import { acceptsGzip, type Deflated } from '../../http/gzip.js';
import { dataText, Envelope, envelopeBytes, envelopeParts, etagOf, gzipEnvelopeParts, ok } from '../envelope.js';
import type { ApiServices, FileResponse, HandlerInput, Operation, OperationRegistry } from './define-operation.js';
import { beginIdempotentRequest } from '../../http/idempotency.js';
import { MULTIPART_OPTIONS, readUploadForm } from '../../http/multipart.js';
import type { V1App } from './v1-app.js';

/** The audit entity named by the operation's definition, from its validated input (a body field before a query one). */
function auditEntityOf(op: Operation, query: object, fields: object) {
  if (!op.audit) return null;
  const { field } = op.audit;
  const source = (Object.hasOwn(fields, field) ? fields : query) as Record<string, unknown> | undefined;
  const id = Number(source?.[field]);
  return Number.isSafeInteger(id) ? { type: op.audit.entity, id } : null;
}

/**
 * The audit builder handed to a handler. Made here so the closure is anonymous: tsx (esbuild's keepNames) names
 * a closure created under a property name with a defineProperty on every creation, 1 % of auth/me's CPU.
 */
const auditBuilder = (request: FastifyRequest, reply: FastifyReply, status: number) => () =>
  auditRecord(request, status, reply.elapsedTime);

/** What the routes share: the handlers' services, the response cache (null: none), the audit log. */
interface RouteDeps {
  services: ApiServices;
  cache: ResponseCache | null;
  audit: Pick<AuditService, 'flush'>;
}

/**
 * Runs the handler of a validated request. A write's audit record commits in the write's own transaction
 * (docs/design.md §7); only once it committed is the request marked audited, so a failure is still recorded by
 * the onResponse hook. Before a write, the records queued by requests that finished earlier are written, once
 * (the audit log's order by id stays the order in which requests finished). Answers the operation's status.
 */
async function run(
  op: Operation,
  { services, cache, audit }: RouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { query: unknown; fields: unknown; files: IncomingImage[] },
) {
  // bearerAuth resolved the principal of every route with a scope; this only keeps the types honest.
  const principal = request.api.principal;
  if (!principal) throw unauthorized();
  request.api.auditEntity = auditEntityOf(op, input.query as object, input.fields as object);
  const handlerInput: HandlerInput<Record<string, unknown>, Record<string, unknown>> = {
    user: principal.user,
    token: principal.token,
    query: input.query as Record<string, unknown>,
    fields: input.fields as Record<string, unknown>,
    files: input.files,
    audit: auditBuilder(request, reply, op.status),
  };
  if (op.cache && cache) return cachedRead(op, services, cache, reply, handlerInput);
  if (op.body !== 'none') await audit.flush();
  const data = await op.handler(handlerInput, services);
  if (op.body !== 'none') request.api.audited = true;
  reply.code(op.status);
  if (op.file) return sendFile(reply, data as FileResponse);
  if (data instanceof SerializedData) return sendSerialized(reply, data.bytes, etagOf(data.bytes), data.deflated);
  return ok(request, data);
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Data at least this large (a project tree: ~1 MB for 5 000 items) goes out as the envelope's three parts rather than
 * one copy of them all: a copy per answer, at ~100 trees/s, left that many freed megabytes in the process's malloc
 * heap (docs/performance.md, "Issue 31: server RSS"). A card (~2 KB) is one small copy, cheaper than a stream.
 */
const UNCOPIED_DATA_BYTES = 64 * 1024;

/**
 * A success envelope around `data` serialized before; its ETag is known (the onSend hook hashes only strings). Sent
 * gzipped when it was deflated ahead (a tree, in the worker) and the client accepts gzip: a tenth of the bytes to
 * copy into the socket on the event loop, and to carry to a phone (docs/performance.md, "Trees sent gzipped").
 */
export function sendSerialized(reply: FastifyReply, data: Buffer, etag: string, deflated?: Deflated) {
  reply.type(JSON_TYPE).header('etag', etag);
  if (data.length < UNCOPIED_DATA_BYTES) return reply.send(envelopeBytes(reply.request, data));
  let parts: Buffer[] = envelopeParts(reply.request, data);
  if (deflated) {
    reply.header('vary', 'Accept-Encoding');
    if (acceptsGzip(reply.request.headers['accept-encoding'])) {
      parts = gzipEnvelopeParts(reply.request, deflated);
      reply.header('content-encoding', 'gzip');
    }
  }
  reply.header(
    'content-length',
    parts.reduce((n, part) => n + part.length, 0),
  );
  return reply.send(Readable.from(parts, { objectMode: false }));
}

/** Who asks, as far as an answer can differ: the user, their role and the token's project limit. */
const callerKey = (user: Principal['user']) => `${user.id}.${user.role}.${user.projectIds?.join(',') ?? '*'}`;

/**
 * A read with `op.cache` (a card, a tree): the cached text while the database holds the version it was
 * built at, else the handler's answer, kept under the version read before it was built.
 */
async function cachedRead(
  op: Operation,
  services: ApiServices,
  cache: ResponseCache,
  reply: FastifyReply,
  input: HandlerInput<Record<string, unknown>, Record<string, unknown>>,
) {
  const version = await op.cache!.version(input, services);
  const key = `${op.path}?${JSON.stringify(input.query)}|${callerKey(input.user)}`;
  const hit = version === null ? undefined : cache.get(key, version);
  reply.code(op.status);
  if (hit) return sendSerialized(reply, hit.data, hit.etag, hit.deflated);
  const data = await op.handler(input, services);
  if (data instanceof SerializedData) {
    const etag = etagOf(data.bytes);
    if (version !== null) cache.set(key, version, { data: data.bytes, etag, deflated: data.deflated });
    return sendSerialized(reply, data.bytes, etag, data.deflated);
  }
  const payload = reply.serialize(ok(reply.request, data)) as string;
  const text = dataText(payload);
  if (text !== null) {
    const etag = etagOf(text);
    if (version !== null) cache.set(key, version, { data: Buffer.from(text), etag });
    reply.header('etag', etag);
  }
  return reply.type(JSON_TYPE).send(payload);
}

/**
 * A file operation's success: the stream as the body, with backpressure (Fastify pipes it to the socket).
 * Its errors before this point were answered in the envelope; the onResponse hook audits it once sent.
 */
function sendFile(reply: FastifyReply, file: FileResponse) {
  reply.headers({
    'content-type': file.contentType,
    'content-disposition': `attachment; filename="${file.filename.replace(/[^\w.-]/g, '_')}"`,
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  });
  return reply.send(file.stream);
}

function routeOf(op: Operation, deps: RouteDeps) {
  return {
    method: op.method,
    url: op.path,
    config: { scope: op.scope },
    schema: {
      summary: op.summary,
      ...(op.query ? { querystring: op.query } : {}),
      ...(op.body === 'json' ? { body: op.fields } : {}),
      ...(op.body === 'multipart' ? { consumes: ['multipart/form-data'] } : {}),
      // A file is not serialized: the OpenAPI document describes its media types (openapi.ts).
      response: op.file ? {} : { [op.status]: Envelope(op.data) },
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      if (op.body !== 'multipart') return run(op, deps, request, reply, { query: request.query, fields: request.body ?? {}, files: [] });
      const form = await readUploadForm(request, op.fields);
      try {
        request.api.auditEntity = auditEntityOf(op, {}, form.fields);
        if (!(await beginIdempotentRequest(request, reply, form.fingerprint))) return reply;
        return await run(op, deps, request, reply, { query: {}, fields: form.fields, files: form.files });
      } finally {
        await form.cleanup();
      }
    },
  };
}

/**
 * Registers each operation of the list as a route running its handler with `deps.services`; multipart is
 * parsed only on the upload routes; reads with `cache` go through `deps.cache` when there is one.
 */
export async function registerOperations(app: V1App, operations: OperationRegistry, deps: RouteDeps) {
  const all = Object.values(operations);
  for (const op of all.filter((o) => o.body !== 'multipart')) app.route(routeOf(op, deps));
  await app.register(async (uploads: V1App) => {
    await uploads.register(multipart, MULTIPART_OPTIONS);
    for (const op of all.filter((o) => o.body === 'multipart')) uploads.route(routeOf(op, deps));
  });
}
