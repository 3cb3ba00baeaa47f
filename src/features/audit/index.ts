/**
 * The audit log as one module. Writes insert their record inside their own transaction; the records of everything
 * else are batched (audit-batcher.ts) and written by the service's close() at the latest.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createAuditRepository } from './audit.repository.js';
import { createAuditService } from './audit.service.js';

export function createAuditModule(deps: { db: Kysely<Database> }) {
  return { audit: createAuditService(createAuditRepository(deps.db)) };
}

export type AuditModule = ReturnType<typeof createAuditModule>;
