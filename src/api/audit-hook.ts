import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditService } from '../features/audit/audit.service.js';
import { auditRecord } from '../http/audit-record.js';

/**
 * Records every request under /api/ that reaches the application, failures included. A write that
 * committed recorded itself in its own transaction; every other record is queued and written in a
 * batch within 100 ms (features/audit/audit-batcher.ts): no INSERT on the path of a read.
 */
export function auditOnResponse(audit: AuditService) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.api.audited) return;
    audit.recordLater(auditRecord(request, reply.statusCode, reply.elapsedTime));
  };
}
