import type { Kysely } from 'kysely';
import { precompile } from '../../db/precompiled.js';
import type { Database } from '../../db/tables.js';

/**
 * The versions that validate cached answers (migration 015 bumps them by triggers, in the transaction of
 * every write). One query each; a missing row is version 0. Null when the item or project does not exist:
 * such an answer (404) is not cached.
 */
export function createCacheVersionsRepository(db: Kysely<Database>) {
  const card = precompile(db, (db, p: { itemId: number }) =>
    db
      .selectFrom('items as i')
      .select((eb) => [
        eb.selectFrom('cache_versions as v').select('v.version').where('v.scope', '=', 'item').whereRef('v.id', '=', 'i.id').as('item'),
        eb
          .selectFrom('cache_versions as v')
          .select('v.version')
          .where('v.scope', '=', 'project')
          .whereRef('v.id', '=', 'i.project_id')
          .as('project'),
        eb.selectFrom('cache_versions as v').select('v.version').where('v.scope', '=', 'users').where('v.id', '=', 0).as('users'),
      ])
      .where('i.id', '=', p.itemId),
  );
  const tree = precompile(db, (db, p: { projectId: number }) =>
    db
      .selectFrom('projects as p')
      .select((eb) => [
        eb
          .selectFrom('cache_versions as v')
          .select('v.version')
          .where('v.scope', '=', 'project')
          .whereRef('v.id', '=', 'p.id')
          .as('project'),
        eb.selectFrom('cache_versions as v').select('v.version').where('v.scope', '=', 'tree').whereRef('v.id', '=', 'p.id').as('tree'),
      ])
      .where('p.id', '=', p.projectId),
  );
  return {
    /** An item card: the item, its project (access, places, roles) and the users' names. */
    async card(itemId: number): Promise<string | null> {
      const row = await card.executeTakeFirst({ itemId });
      return row ? `${row.item ?? 0}.${row.project ?? 0}.${row.users ?? 0}` : null;
    },
    /** A project tree: the project (card, structure, access) and its items' summaries. */
    async tree(projectId: number): Promise<string | null> {
      const row = await tree.executeTakeFirst({ projectId });
      return row ? `${row.project ?? 0}.${row.tree ?? 0}` : null;
    },
  };
}

export type CacheVersionsRepository = ReturnType<typeof createCacheVersionsRepository>;
