import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database, NewAuditRecord } from '../db/tables.js';
import type { AuditService } from '../features/audit/audit.service.js';

const clip = (value: string | undefined, max: number) => (value === undefined ? null : value.slice(0, max));

/** The audit record of a request; the status is passed when a write records it before responding. */
export function auditRecord(request: FastifyRequest, status: number, durationMs: number): NewAuditRecord {
  const [path = '', query = ''] = request.url.split(/\?(.*)/s);
  const clientRequestId = request.headers['x-request-id'];
  return {
    request_id: request.id,
    at: new Date().toISOString(),
    token_id: request.principal?.token.id ?? null,
    user_id: request.principal?.user.id ?? null,
    method: request.method,
    path: path.slice(0, 2000),
    query: query.slice(0, 4000),
    status,
    error_code: request.errorCode,
    ip: request.ip ?? null,
    user_agent: clip(request.headers['user-agent'], 500),
    duration_ms: Math.round(durationMs * 1000) / 1000,
    entity_type: request.auditEntity?.type ?? null,
    entity_id: request.auditEntity?.id ?? null,
    client_request_id: clip(typeof clientRequestId === 'string' ? clientRequestId : undefined, 200),
  };
}

/** Records every request under /api/ that reaches the application, failures included. */
export function auditOnResponse(audit: AuditService) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // A write recorded itself in its transaction; if that rolled back, the failure is recorded here.
    if (request.audited && reply.statusCode < 400) return;
    try {
      await audit.record(auditRecord(request, reply.statusCode, reply.elapsedTime));
    } catch (err) {
      request.log.error({ err }, 'audit record could not be written');
    }
  };
}

/**
 * For writes: a function that records the audit entry inside the write's own transaction,
 * so that a write answered with `status` always has its record.
 */
export function auditWithin(request: FastifyRequest, reply: FastifyReply, audit: AuditService, status: number) {
  return async (trx: Kysely<Database>, entity?: { type: string; id: number }) => {
    if (entity) request.auditEntity = entity;
    await audit.record(auditRecord(request, status, reply.elapsedTime), trx);
    request.audited = true;
  };
}
