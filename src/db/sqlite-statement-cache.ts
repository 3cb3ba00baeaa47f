import type SQLite from 'better-sqlite3';

/**
 * Kysely's SQLite driver calls `db.prepare(sql)` for every query it runs, and preparing costs more
 * than running most of our queries (profile of GET auth/me: `prepare` 11 % of the CPU, see
 * docs/performance.md). Statements are kept by their SQL text, least recently used dropped beyond
 * `max`; the SQL text holds only placeholders, never values, so the set of texts is small.
 *
 * Reusing a statement is safe here: Kysely runs one query at a time on the single SQLite connection
 * (its connection mutex), and better-sqlite3 re-prepares a statement by itself after a schema change.
 */
export function cacheStatements(sqlite: SQLite.Database, max = 1000): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const statements = new Map<string, SQLite.Statement>();
  const cached = (source: string): SQLite.Statement => {
    let statement = statements.get(source);
    if (statement) {
      // Most recently used last: Map keeps insertion order.
      statements.delete(source);
    } else {
      statement = prepare(source);
      if (statements.size >= max) statements.delete(statements.keys().next().value!);
    }
    statements.set(source, statement);
    return statement;
  };
  (sqlite as { prepare: unknown }).prepare = cached;
}
