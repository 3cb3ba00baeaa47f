import type { Kysely } from 'kysely';
import type { Database, NewAuditRecord } from '../../db/tables.js';

export interface AuditRecord {
  request_id: string;
  at: string;
  token_id: number | null;
  user_id: number | null;
  method: string;
  path: string;
  query: string;
  status: number;
  error_code: string | null;
  ip: string | null;
  user_agent: string | null;
  duration_ms: number;
  entity_type: string | null;
  entity_id: number | null;
  client_request_id: string | null;
}

export interface AuditFilter {
  tokenId?: number;
  userId?: number;
  since?: string;
  status?: number;
  /** Inclusive bounds of the HTTP status (e.g. 400–499), for the web audit page's filter. */
  statusRange?: { min: number; max: number };
  /** Records strictly before this time. */
  until?: string;
  limit?: number;
}

export function createAuditService(db: Kysely<Database>) {
  return {
    /** Writes one record; pass the transaction of a write so the record commits with it. */
    async record(entry: NewAuditRecord, trx: Kysely<Database> = db): Promise<void> {
      await trx.insertInto('audit_log').values(entry).execute();
    },

    /** Newest first. */
    async list(filter: AuditFilter = {}): Promise<AuditRecord[]> {
      let query = db
        .selectFrom('audit_log')
        .select([
          'request_id',
          'at',
          'token_id',
          'user_id',
          'method',
          'path',
          'query',
          'status',
          'error_code',
          'ip',
          'user_agent',
          'duration_ms',
          'entity_type',
          'entity_id',
          'client_request_id',
        ]);
      if (filter.tokenId !== undefined) query = query.where('token_id', '=', filter.tokenId);
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
      if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (filter.statusRange !== undefined) {
        query = query.where('status', '>=', filter.statusRange.min).where('status', '<=', filter.statusRange.max);
      }
      if (filter.until !== undefined) query = query.where('at', '<', filter.until);
      return query
        .orderBy('id', 'desc')
        .limit(filter.limit ?? 100)
        .execute();
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
