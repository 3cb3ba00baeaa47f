import { type Kysely, type MigrationProvider, Migrator } from 'kysely';
import { migrations } from './migrations/index.js';

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies every pending migration; returns the names applied. Throws with the reason on failure. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
