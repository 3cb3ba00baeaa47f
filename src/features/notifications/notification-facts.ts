import { type Compilable, type Kysely } from 'kysely';
import { type Precompiled, precompileRowsLazily } from '../../db/precompiled.js';
import type { Database } from '../../db/tables.js';

// What the worker's batch reads about the people and items of its events, over lists of ids (see byIds).

/**
 * An IN list padded to a power of two with its last value: the worker's batch queries then have a few SQL texts
 * rather than one per list length, so that SQLite reuses their prepared statements (db/sqlite-statement-cache.ts)
 * instead of preparing statements of hundreds of parameters for every batch and crowding the others out.
 */
function padded<T>(values: readonly T[]): T[] {
  const list = [...values];
  let size = list.length && 1;
  while (size < list.length) size *= 2;
  while (list.length < size) list.push(list[list.length - 1]!);
  return list;
}

/**
 * A query of the worker's batch over a list of ids (`in`), built and compiled once per padded length of the
 * list (db/precompiled.ts) instead of Kysely building hundreds of value nodes for every batch.
 */
function byIds<R>(build: (db: Kysely<Database>, ids: readonly unknown[]) => Compilable<R>) {
  const bySize = new Map<number, Precompiled<Database, readonly { id: number }[], R>>();
  return (db: Kysely<Database>, ids: readonly number[]): Promise<R[]> => {
    if (ids.length === 0) return Promise.resolve([]);
    const list = padded(ids);
    let query = bySize.get(list.length);
    if (!query) {
      query = precompileRowsLazily(list.length, ['id'], (db: Kysely<Database>, rows: { id: number }[]) =>
        build(
          db,
          rows.map((r) => r.id),
        ),
      );
      bySize.set(list.length, query);
    }
    return query.execute(
      list.map((id) => ({ id })),
      db,
    );
  };
}

/** What the access policy needs to know of each item (and its text). */
export const itemFacts = byIds((db, ids) =>
  db
    .selectFrom('items as i')
    .innerJoin('projects as p', 'p.id', 'i.project_id')
    .select(['i.id', 'i.text', 'i.project_id', 'i.section_id', 'i.checklist_id', 'p.archived', 'i.responsible_company_id'])
    .where('i.id', 'in', ids as number[]),
);

/**
 * Every membership of these users. Read by user alone: filtering on a list of projects too would make the
 * database try every (user, project) pair (20 ms for a batch of 500 events on the bench workspace).
 */
export const membershipsOf = byIds((db, ids) =>
  db
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.project_id', 'm.user_id', 'm.role', 'm.section_ids', 'm.checklist_ids', 'm.company_items_only', 'u.company_id'])
    .where('m.user_id', 'in', ids as number[]),
);

/** The modes of several users (the worker's batch). */
export const modes = byIds((db, ids) =>
  db
    .selectFrom('notification_preferences')
    .selectAll()
    .where('user_id', 'in', ids as number[]),
);

export const users = byIds((db, ids) =>
  db
    .selectFrom('users')
    .select(['id', 'name', 'email', 'role', 'active', 'time_zone', 'language', 'browser_language'])
    .where('id', 'in', ids as number[]),
);

/**
 * The participants of the items, each with what deciding their notification needs, in one read: their
 * membership of the item's project (null role: none), their account (role, active) and the item's facts
 * for the access policy (and its text), so that a batch of comments reads no user or item again.
 */
export const participantsOf = byIds((db, ids) =>
  db
    .selectFrom('item_participants as ip')
    .innerJoin('items as i', 'i.id', 'ip.item_id')
    .innerJoin('projects as p', 'p.id', 'i.project_id')
    .innerJoin('users as u', 'u.id', 'ip.user_id')
    .leftJoin('project_members as m', (join) => join.onRef('m.project_id', '=', 'i.project_id').onRef('m.user_id', '=', 'ip.user_id'))
    .select([
      'ip.item_id',
      'ip.user_id',
      'i.project_id',
      'm.role',
      'm.section_ids',
      'm.checklist_ids',
      'm.company_items_only',
      'u.company_id',
      'u.role as user_role',
      'u.active',
      'i.text',
      'i.responsible_company_id',
      'i.section_id',
      'i.checklist_id',
      'p.archived',
    ])
    .where('ip.item_id', 'in', ids as number[]),
);

/** The managers of the projects, with their memberships and their accounts (role, active). */
export const managersOf = byIds((db, ids) =>
  db
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select([
      'm.project_id',
      'm.user_id',
      'm.role',
      'm.section_ids',
      'm.checklist_ids',
      'm.company_items_only',
      'u.company_id',
      'u.role as user_role',
      'u.active',
    ])
    .where('m.project_id', 'in', ids as number[])
    .where('m.role', '=', 'manager'),
);

export const answerAuthors = byIds((db, ids) =>
  db
    .selectFrom('answers')
    .select(['id', 'author_id'])
    .where('id', 'in', ids as number[]),
);
