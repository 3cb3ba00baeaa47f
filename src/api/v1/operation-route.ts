import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingImage } from '../../features/attachments/attachments.service.js';
import type { AuditEntryBuilder } from '../../features/items/item-transaction.js';
import type { Principal } from '../../features/tokens/tokens.service.js';
import { unauthorized } from '../../errors.js';
import { auditRecord } from '../audit-hook.js';
import { Envelope, ok } from '../envelope.js';
import { beginIdempotentRequest } from './idempotency.js';
import { MULTIPART_OPTIONS, readUploadForm } from './multipart.js';
import { type Operation, type OperationFields, type OperationId, type OperationQuery, OPERATION_IDS, OPERATIONS } from './operations.js';
import type { V1App } from './plugin.js';

/** What a handler receives: the principal's user and token, the validated input, and the audit builder of a write. */
export interface HandlerInput<Id extends OperationId> {
  user: Principal['user'];
  token: Principal['token'];
  query: OperationQuery<Id>;
  /** The JSON body, or the text fields of a multipart form. */
  fields: OperationFields<Id>;
  /** The files of a multipart form (empty otherwise). */
  files: IncomingImage[];
  /** For writes: the service calls it inside its transaction, so the write and its audit record commit together. */
  audit: AuditEntryBuilder;
}

/**
 * The handler answers the operation's `data`; the response schema serializes it (undeclared fields are
 * stripped) and test/openapi.test.ts checks real responses against it. Typed `unknown` because the
 * services still type enumerations as plain strings.
 */
export type Handler<Id extends OperationId> = (input: HandlerInput<Id>) => Promise<unknown>;
export type Handlers = { [Id in OperationId]: Handler<Id> };

/** The audit entity named by the operation's definition, from its validated input. */
function auditEntityOf(op: Operation, input: Record<string, unknown>) {
  if (!op.audit) return null;
  const id = Number(input[op.audit.field]);
  return Number.isSafeInteger(id) ? { type: op.audit.entity, id } : null;
}

/**
 * Runs the handler of a validated request. A write's audit record commits in the write's own transaction
 * (DESIGN.md §7); only once it committed is the request marked audited, so a failure is still recorded by
 * the onResponse hook. Answers the operation's status (201 for creating writes).
 */
async function run<Id extends OperationId>(
  id: Id,
  handler: Handler<Id>,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { query: unknown; fields: unknown; files: IncomingImage[] },
) {
  const op: Operation = OPERATIONS[id];
  // bearerAuth resolved the principal of every route with a scope; this only keeps the types honest.
  const principal = request.api.principal;
  if (!principal) throw unauthorized();
  request.api.auditEntity = auditEntityOf(op, { ...(input.query as object), ...(input.fields as object) });
  const data = await handler({
    user: principal.user,
    token: principal.token,
    query: input.query as OperationQuery<Id>,
    fields: input.fields as OperationFields<Id>,
    files: input.files,
    audit: () => auditRecord(request, op.status, reply.elapsedTime),
  });
  if (op.body !== 'none') request.api.audited = true;
  reply.code(op.status);
  return ok(request, data);
}

function routeOf<Id extends OperationId>(id: Id, handler: Handler<Id>) {
  const op: Operation = OPERATIONS[id];
  return {
    method: op.method,
    url: op.path,
    config: { scope: op.scope },
    schema: {
      summary: op.summary,
      ...(op.query ? { querystring: op.query } : {}),
      ...(op.body === 'json' ? { body: op.fields } : {}),
      ...(op.body === 'multipart' ? { consumes: ['multipart/form-data'] } : {}),
      response: { [op.status]: Envelope(op.data) },
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      if (op.body !== 'multipart') return run(id, handler, request, reply, { query: request.query, fields: request.body ?? {}, files: [] });
      const form = await readUploadForm(request, op.fields);
      try {
        request.api.auditEntity = auditEntityOf(op, form.fields);
        if (!(await beginIdempotentRequest(request, reply, form.fingerprint))) return reply;
        return await run(id, handler, request, reply, { query: {}, fields: form.fields, files: form.files });
      } finally {
        await form.cleanup();
      }
    },
  };
}

/** Registers every operation of OPERATIONS with its handler; multipart is parsed only on the upload routes. */
export async function registerOperations(app: V1App, handlers: Handlers) {
  for (const id of OPERATION_IDS) {
    if (OPERATIONS[id].body !== 'multipart') app.route(routeOf(id, handlers[id] as Handler<typeof id>));
  }
  await app.register(async (uploads: V1App) => {
    await uploads.register(multipart, MULTIPART_OPTIONS);
    for (const id of OPERATION_IDS) {
      if (OPERATIONS[id].body === 'multipart') uploads.route(routeOf(id, handlers[id] as Handler<typeof id>));
    }
  });
}
