import { type Kysely, sql } from 'kysely';
import type { Db } from '../../src/db/database.js';

/** The tables of the export round trip (export-roundtrip.test.ts): which an export carries, which it leaves out, and their rows. */

/** Tables an export must carry row for row. */
export const PERSISTENT: Record<string, string[]> = {
  companies: ['id'],
  users: ['id'],
  projects: ['id'],
  project_members: ['project_id', 'user_id'],
  sections: ['id'],
  checklists: ['id'],
  items: ['id'],
  item_participants: ['item_id', 'user_id'],
  item_history: ['id'],
  comments: ['id'],
  answers: ['id'],
  answer_reviews: ['id'],
  document_links: ['id'],
  attachments: ['id'],
  categories: ['id'],
  custom_fields: ['id'],
  item_field_values: ['item_id', 'field_id'],
  project_escalations: ['project_id'],
  api_tokens: ['id'],
  audit_log: ['id'],
  events: ['id'],
};
/** Left out on purpose (docs/decisions.md, "Fixture extensions"): transient, or rebuilt from the rest. */
export const TRANSIENT = [
  'idempotency_keys',
  'web_sessions',
  'web_sign_in_failures',
  'rate_limit_counters',
  'webhook_endpoints',
  'webhook_deliveries',
  'oauth_clients',
  'oauth_grants',
  'oauth_codes',
  'oauth_refresh_tokens',
  'notifications',
  'notification_emails',
  'notification_preferences',
  'outbox_consumers',
  // Plans and their renderings are not in the fixture format (docs/design.md §2 and §19 give it no plan keys):
  // a backup (`punchlist backup`, database and blobs) carries them; an export carries no place (docs/decisions.md).
  'plans',
  'plan_versions',
  'plan_uploads',
  // Invitations are single-use links of a week, and pack sends a record against sending twice (docs/decisions.md,
  // "Companies"): neither is worth carrying across a move.
  'invitations',
  'company_pack_sends',
  // Templates travel as their own documents (`punchlist templates export|import`, docs/cli.md), not in a fixture.
  'templates',
  // The escalation steps told: a record against telling twice (as company_pack_sends); after a move, an overdue
  // item is told its current step once more at most.
  'escalation_steps',
];
/** Left out, but not filled by this test's writes (the workspace has a plan and its version). */
const FILLED_HERE = ['idempotency_keys', 'web_sessions', 'plans', 'plan_versions'];
export const EMPTY_HERE = TRANSIENT.filter((table) => !FILLED_HERE.includes(table));
// Rebuilt from the rest: the search index, the migrator's tables, the caches' versions (bumped by triggers as
// the import writes, migration 015).
const DERIVED = /^(search_|kysely_|cache_versions$)/;

/** Every row of a table in key order. */
export async function rowsOf(db: Kysely<any>, table: string): Promise<Record<string, unknown>[]> {
  let query = db.selectFrom(table).selectAll();
  for (const column of PERSISTENT[table] ?? []) query = query.orderBy(column);
  return query.execute();
}

export async function tableNames(db: Db): Promise<string[]> {
  const result =
    db.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db.kysely)
      : await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public'`.execute(db.kysely);
  return result.rows
    .map((r) => r.name)
    .filter((name) => !DERIVED.test(name))
    .sort();
}
