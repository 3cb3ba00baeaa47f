import type { Kysely } from 'kysely';
import { precompileLazily } from '../../db/precompiled.js';
import type { Database } from '../../db/tables.js';

/** The project's row lock (a self-assignment, as for items): structural writes of one project serialize on it. */
export const lockProject = precompileLazily((db: Kysely<Database>, p: { projectId: number }) =>
  db
    .updateTable('projects')
    .set((eb) => ({ archived: eb.ref('archived') }))
    .where('id', '=', p.projectId)
    .returning(['id']),
);
