import type { Kysely, Selectable } from 'kysely';
import { inTransaction } from '../../db/in-transaction.js';
import { precompile } from '../../db/precompiled.js';
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/tables.js';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;

/** The SQL of webhooks: endpoints, their lease and cursor, and the delivery log. */
export function createWebhooksRepository(db: Kysely<Database>) {
  // The delivery worker's two looks run after every committed write (delivery-worker.ts): built once, as the
  // query builder cost more than SQLite running them (profile of PATCH items/status: 2.8 % of the CPU in them).
  const due = precompile(db, (db, p: { now: string; limit: number }) =>
    db
      .selectFrom('webhook_endpoints as w')
      .innerJoin('users as u', 'u.id', 'w.user_id')
      .selectAll('w')
      .select('u.role as owner_role')
      .where('w.state', '=', 'active')
      .where('u.active', '=', 1)
      .where((eb) => eb.or([eb('w.lease_until', 'is', null), eb('w.lease_until', '<', p.now)]))
      .where((eb) => eb.or([eb('w.next_attempt_at', 'is', null), eb('w.next_attempt_at', '<=', p.now)]))
      .where((eb) => eb.exists(eb.selectFrom('events as e').select('e.id').whereRef('e.id', '>', 'w.cursor')))
      .orderBy('w.id')
      .limit(p.limit),
  );
  const pending = precompile(db, (db) =>
    db
      .selectFrom('webhook_endpoints as w')
      .innerJoin('events as e', (j) => j.onRef('e.id', '>', 'w.cursor'))
      .select((eb) => eb.fn.countAll().as('n'))
      .where('w.state', '=', 'active'),
  );
  return {
    /** Runs `work` in one transaction: an owner's change and its audit record. */
    transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
      return inTransaction(db, work);
    },

    async create(
      row: Omit<WebhookEndpointRow, 'id' | 'attempts' | 'failing_since' | 'next_attempt_at' | 'lease_until' | 'disabled_reason'>,
      executor: Kysely<Database> = db,
    ): Promise<number> {
      const created = await executor.insertInto('webhook_endpoints').values(row).returning('id').executeTakeFirstOrThrow();
      return created.id;
    },

    byUser(userId: number) {
      return db.selectFrom('webhook_endpoints').selectAll().where('user_id', '=', userId).orderBy('id').execute();
    },

    find(id: number) {
      return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async disable(id: number, reason: string, executor: Kysely<Database> = db): Promise<boolean> {
      const result = await executor
        .updateTable('webhook_endpoints')
        .set({ state: 'disabled', disabled_reason: reason, lease_until: null })
        .where('id', '=', id)
        .where('state', '=', 'active')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Active endpoints of active owners that are not leased by a node and not waiting for a retry. */
    due(now: string, limit: number) {
      return due.execute({ now, limit });
    },

    /** Done with every event up to `cursor` (delivered, or not for this endpoint): the failure count starts over. */
    async advance(id: number, cursor: number): Promise<void> {
      await db
        .updateTable('webhook_endpoints')
        .set({ cursor, attempts: 0, failing_since: null, next_attempt_at: null })
        .where('id', '=', id)
        .execute();
    },

    async retryLater(id: number, attempts: number, failingSince: string, nextAttemptAt: string): Promise<void> {
      await db
        .updateTable('webhook_endpoints')
        .set({ attempts, failing_since: failingSince, next_attempt_at: nextAttemptAt, lease_until: null })
        .where('id', '=', id)
        .execute();
    },

    async log(
      row: Omit<WebhookDeliveryRow, 'id' | 'redelivery'> & { redelivery?: number },
      executor: Kysely<Database> = db,
    ): Promise<void> {
      await executor.insertInto('webhook_deliveries').values(row).execute();
    },

    deliveries(endpointId: number, limit: number) {
      return db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    findDelivery(id: number) {
      return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Events after the cursors of the active endpoints (before filters): the deliveries waiting. */
    async pending(): Promise<number> {
      const row = await pending.executeTakeFirst({});
      return Number(row?.n ?? 0);
    },
  };
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
