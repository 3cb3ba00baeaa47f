import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditEntryBuilder } from '../../features/items/item-transaction.js';
import { auditRecord } from '../audit-hook.js';
import { ok } from '../envelope.js';

/**
 * Runs a write whose audit record commits in the write's own transaction (DESIGN.md §7: a
 * successful write has its audit record). The service calls the builder inside its transaction;
 * only once the write has committed is the request marked audited, so a failure is still
 * recorded by the onResponse hook. Answers `status` (201 for creating writes, 200 otherwise).
 */
export async function auditedWrite<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  status: 200 | 201,
  write: (buildAudit: AuditEntryBuilder) => Promise<T>,
) {
  const data = await write(() => auditRecord(request, status, reply.elapsedTime));
  request.audited = true;
  reply.code(status);
  return ok(request, data);
}
