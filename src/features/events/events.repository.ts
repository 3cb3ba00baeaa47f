import { bindStatements } from '../../db/bind-statements.js';
import { type Insertable, type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Database, EventsTable } from '../../db/tables.js';
import type { EventType } from '../../domain/values.js';

/** An event about to be written, in the transaction of its change: the row, with its type and data typed. */
export type NewEvent = Omit<Insertable<EventsTable>, 'id' | 'type' | 'data'> & { type: EventType; data: unknown };

/** Which events a reader may see: everything, or per project the whole of it or some sections and checklists. */
export type EventVisibility =
  | 'all'
  | {
      projectId: number;
      sectionIds: readonly number[] | null;
      checklistIds: readonly number[] | null;
      /** docs/design.md §20: set for a member limited to their company's items (null: they have no company). */
      companyItems?: { companyId: number | null } | null;
    }[];

export interface EventQuery {
  after: number;
  limit: number;
  projectId: number | null;
  itemId: number | null;
  types: readonly EventType[] | null;
}

/** Whether `executor` runs on PostgreSQL (its transactions share the database's adapter). */
const onPostgres = (executor: Kysely<Database>) => executor.getExecutor().adapter instanceof PostgresAdapter;

// Any constant: the advisory lock that keeps readers from passing an event id that has not committed (PostgreSQL).
const EVENT_ORDER_LOCK = 7_311_502_011;

/** Appends events inside the caller's transaction (see lastId for the lock). */
async function append(trx: Kysely<Database>, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  if (onPostgres(trx)) await sql`select pg_advisory_xact_lock_shared(${EVENT_ORDER_LOCK})`.execute(trx);
  await trx
    .insertInto('events')
    .values(events.map((e) => ({ ...e, data: JSON.stringify(e.data) })))
    .execute();
}

/**
 * Events after the cursor and up to `upTo` (a `lastId()` read before: nothing at or below it is still
 * to commit), oldest first, that match the filters and the reader's visibility.
 */
async function list(db: Kysely<Database>, visibility: EventVisibility, query: EventQuery, upTo: number) {
  let q = db
    .selectFrom('events as e')
    .leftJoin('users as u', 'u.id', 'e.actor_id')
    .select(['e.id', 'e.type', 'e.at', 'e.project_id', 'e.item_id', 'e.actor_id', 'u.name as actor_name', 'e.token_id', 'e.data'])
    .where('e.id', '>', query.after)
    .where('e.id', '<=', upTo);
  if (query.projectId !== null) q = q.where('e.project_id', '=', query.projectId);
  if (query.itemId !== null) q = q.where('e.item_id', '=', query.itemId);
  if (query.types !== null) q = q.where('e.type', 'in', [...query.types]);
  if (visibility !== 'all') {
    if (visibility.length === 0) return [];
    q = q.where((eb) =>
      eb.or(
        visibility.map((v) => {
          let inProject = eb('e.project_id', '=', v.projectId);
          if (v.companyItems) {
            // The events of the items their company holds now, and those of no item (docs/design.md §20).
            const held = eb
              .selectFrom('items as ci')
              .select('ci.id')
              .where('ci.project_id', '=', v.projectId)
              .where('ci.responsible_company_id', '=', v.companyItems.companyId ?? 0);
            inProject = eb.and([inProject, eb.or([eb('e.item_id', 'is', null), eb('e.item_id', 'in', held)])]);
          }
          if (v.sectionIds === null && v.checklistIds === null) return inProject;
          // A limited member sees the project's own events (no section: a verdict, the project's fields) and
          // those of the granted sections and checklists, structure changes included.
          const parts = [eb('e.section_id', 'is', null)];
          if (v.sectionIds?.length) parts.push(eb('e.section_id', 'in', [...v.sectionIds]));
          if (v.checklistIds?.length) parts.push(eb('e.checklist_id', 'in', [...v.checklistIds]));
          return eb.and([inProject, eb.or(parts)]);
        }),
      ),
    );
  }
  return q.orderBy('e.id').limit(query.limit).execute();
}

/** Every event of one item still kept, oldest first, with its actor's name (the item page's timeline). */
function ofItem(db: Kysely<Database>, itemId: number) {
  return db
    .selectFrom('events as e')
    .leftJoin('users as u', 'u.id', 'e.actor_id')
    .select(['e.id', 'e.type', 'e.at', 'e.project_id', 'e.item_id', 'e.actor_id', 'u.name as actor_name', 'e.token_id', 'e.data'])
    .where('e.item_id', '=', itemId)
    .orderBy('e.id')
    .execute();
}

/** Names of users and checklists that events refer to by id. */
async function names(db: Kysely<Database>, userIds: readonly number[], checklistIds: readonly number[]) {
  const [users, checklists] = await Promise.all([
    userIds.length
      ? db
          .selectFrom('users')
          .select(['id', 'name'])
          .where('id', 'in', [...userIds])
          .execute()
      : [],
    checklistIds.length
      ? db
          .selectFrom('checklists')
          .select(['id', 'name'])
          .where('id', 'in', [...checklistIds])
          .execute()
      : [],
  ]);
  return { users: new Map(users.map((u) => [u.id, u.name])), checklists: new Map(checklists.map((c) => [c.id, c.name])) };
}

/**
 * The highest event id at or below which every event has committed (or rolled back): a reader never goes
 * past it. On PostgreSQL concurrent writers may commit ids out of order, and a reader past id 12 would never
 * see 11. Writers hold the lock shared from their insert to their commit, so they never wait for each
 * other (and share PostgreSQL's WAL flushes); a reader takes it exclusively for an instant, which waits
 * for the writers in flight, then reads the last id. SQLite serializes writers anyway.
 */
async function lastId(db: Kysely<Database>): Promise<number> {
  const last = (executor: Kysely<Database>) =>
    executor
      .selectFrom('events')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst()
      .then((row) => Number(row?.id ?? 0));
  if (!onPostgres(db)) return last(db);
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${EVENT_ORDER_LOCK})`.execute(trx);
    return last(trx);
  });
}

export function createEventsRepository(db: Kysely<Database>) {
  return {
    ...bindStatements(db, { list, ofItem, names, lastId }),
    append,
  };
}

export type EventsRepository = ReturnType<typeof createEventsRepository>;
