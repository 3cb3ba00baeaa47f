import type { FastifyRequest } from 'fastify';
import type { NewAuditRecord } from '../db/tables.js';
import { redactQuery, redactSecrets } from '../domain/redact.js';

// Recorded strings never keep a token or password a client put in the wrong place (domain/redact.ts).
const clip = (value: string | undefined, max: number) => (value === undefined ? null : redactSecrets(value).slice(0, max));

/**
 * The audit record of a request, for /api/ (api/audit-hook.ts, v1's writes) and the web's form path alike; the
 * status is passed when a write records it before responding.
 */
export function auditRecord(request: FastifyRequest, status: number, durationMs: number): NewAuditRecord {
  const [path = '', query = ''] = request.url.split(/\?(.*)/s);
  const clientRequestId = request.headers['x-request-id'];
  return {
    request_id: request.id,
    at: new Date().toISOString(),
    token_id: request.api.principal?.token.id ?? request.api.refusedToken?.tokenId ?? null,
    user_id: request.api.principal?.user.id ?? request.api.sessionUser?.id ?? request.api.refusedToken?.userId ?? null,
    method: request.method,
    path: redactSecrets(path).slice(0, 2000),
    query: redactQuery(query).slice(0, 4000),
    status,
    error_code: request.api.errorCode,
    ip: request.ip ?? null,
    user_agent: clip(request.headers['user-agent'], 500),
    duration_ms: Math.round(durationMs * 1000) / 1000,
    entity_type: request.api.auditEntity?.type ?? null,
    entity_id: request.api.auditEntity?.id ?? null,
    client_request_id: clip(typeof clientRequestId === 'string' ? clientRequestId : undefined, 200),
  };
}
