import type { Insertable, Kysely } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../../db/tables.js';

/** A key's row: one token, one key (as stored: its digest), one method, one path. */
export interface StoredScope {
  tokenId: number;
  storedKey: string;
  method: string;
  path: string;
}

/** The idempotency_keys table. */
export function createIdempotencyRepository(db: Kysely<Database>) {
  /** The columns that name the scope's row, for `where((eb) => eb.and(…))`. */
  const rowOf = (scope: StoredScope) => ({ token_id: scope.tokenId, key: scope.storedKey, method: scope.method, path: scope.path });
  return {
    /**
     * Creates the row, or takes over the scope's row when it expired at `now`; otherwise does nothing.
     * One INSERT … ON CONFLICT statement: race-safe on every dialect. True when the row is now this one.
     */
    async insertOrTakeOverExpired(
      row: Insertable<IdempotencyKeysTable> & { created_at: string; expires_at: string },
      now: string,
    ): Promise<boolean> {
      const inserted = await db
        .insertInto('idempotency_keys')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['token_id', 'key', 'method', 'path'])
            .doUpdateSet({
              request_hash: row.request_hash,
              status: null,
              response_body: null,
              request_id: row.request_id,
              created_at: row.created_at,
              expires_at: row.expires_at,
            })
            .where('idempotency_keys.expires_at', '<=', now),
        )
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    /** The scope's row unless it expired at `now`. */
    findLive(scope: StoredScope, now: string) {
      return db
        .selectFrom('idempotency_keys')
        .select(['request_hash', 'status', 'response_body', 'request_id'])
        .where((eb) => eb.and(rowOf(scope)))
        .where('expires_at', '>', now)
        .executeTakeFirst();
    },

    /** Stores the response on the row reserved by `requestId`. */
    async complete(scope: StoredScope, requestId: string, status: number, body: string): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ status, response_body: body })
        .where((eb) => eb.and(rowOf(scope)))
        .where('request_id', '=', requestId)
        .execute();
    },

    /** Deletes the row reserved by `requestId` while it has no response. */
    async release(scope: StoredScope, requestId: string): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where((eb) => eb.and(rowOf(scope)))
        .where('request_id', '=', requestId)
        .where('status', 'is', null)
        .execute();
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;
