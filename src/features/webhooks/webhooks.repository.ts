import { bindStatements } from '../../db/bind-statements.js';
import type { Kysely, Selectable } from 'kysely';
import { inTransaction } from '../../db/in-transaction.js';
import { precompile } from '../../db/precompiled.js';
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/tables.js';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;

type EndpointInsert = Omit<WebhookEndpointRow, 'id' | 'attempts' | 'failing_since' | 'next_attempt_at' | 'lease_until' | 'disabled_reason'>;
type DeliveryInsert = Omit<WebhookDeliveryRow, 'id' | 'redelivery'> & { redelivery?: number };

async function create(executor: Kysely<Database>, row: EndpointInsert): Promise<number> {
  const created = await executor.insertInto('webhook_endpoints').values(row).returning('id').executeTakeFirstOrThrow();
  return created.id;
}

function byUser(db: Kysely<Database>, userId: number) {
  return db.selectFrom('webhook_endpoints').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

function find(db: Kysely<Database>, id: number) {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

async function disable(executor: Kysely<Database>, id: number, reason: string): Promise<boolean> {
  const result = await executor
    .updateTable('webhook_endpoints')
    .set({ state: 'disabled', disabled_reason: reason, lease_until: null })
    .where('id', '=', id)
    .where('state', '=', 'active')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Done with every event up to `cursor` (delivered, or not for this endpoint): the failure count starts over. */
async function advance(db: Kysely<Database>, id: number, cursor: number): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ cursor, attempts: 0, failing_since: null, next_attempt_at: null })
    .where('id', '=', id)
    .execute();
}

async function retryLater(db: Kysely<Database>, id: number, attempts: number, failingSince: string, nextAttemptAt: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ attempts, failing_since: failingSince, next_attempt_at: nextAttemptAt, lease_until: null })
    .where('id', '=', id)
    .execute();
}

async function log(executor: Kysely<Database>, row: DeliveryInsert): Promise<void> {
  await executor.insertInto('webhook_deliveries').values(row).execute();
}

function deliveries(db: Kysely<Database>, endpointId: number, limit: number) {
  return db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('id', 'desc').limit(limit).execute();
}

function findDelivery(db: Kysely<Database>, id: number) {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The delivery worker's two looks run after every committed write (delivery-worker.ts): built once, as the
 * query builder cost more than SQLite running them (profile of PATCH items/status: 2.8 % of the CPU in them).
 */
function workerLooks(db: Kysely<Database>) {
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
    /** Active endpoints of active owners that are not leased by a node and not waiting for a retry. */
    due(now: string, limit: number) {
      return due.execute({ now, limit });
    },

    /** Events after the cursors of the active endpoints (before filters): the deliveries waiting. */
    async pending(): Promise<number> {
      const row = await pending.executeTakeFirst({});
      return Number(row?.n ?? 0);
    },
  };
}

/** The SQL of webhooks: endpoints, their lease and cursor, and the delivery log. */
export function createWebhooksRepository(db: Kysely<Database>) {
  return {
    /** Runs `work` in one transaction: an owner's change and its audit record. */
    transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
      return inTransaction(db, work);
    },
    // An owner's change runs in the transaction of its audit record: the executor comes last, optional.
    create: (row: EndpointInsert, executor: Kysely<Database> = db) => create(executor, row),
    disable: (id: number, reason: string, executor: Kysely<Database> = db) => disable(executor, id, reason),
    log: (row: DeliveryInsert, executor: Kysely<Database> = db) => log(executor, row),
    ...bindStatements(db, { byUser, find, advance, retryLater, deliveries, findDelivery }),
    ...workerLooks(db),
  };
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
