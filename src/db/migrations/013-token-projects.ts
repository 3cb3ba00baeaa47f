import type { Kysely } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * Tokens limited to projects (docs/design.md §18): `project_ids`, a JSON list of project ids, on tokens and on OAuth
 * grants (a refreshed token keeps its grant's list); null means every project the user can see.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_tokens').addColumn('project_ids', 'text').execute();
  await db.schema.alterTable('oauth_grants').addColumn('project_ids', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_grants').dropColumn('project_ids').execute();
  await db.schema.alterTable('api_tokens').dropColumn('project_ids').execute();
}
