import type { Kysely } from 'kysely';

/**
 * A repository's statements are named functions over an executor (the database or a transaction), so each reads
 * on its own and a test or a write can run one on its transaction; a `create*Repository(db)` binds them to its
 * database. A statement's own type parameters are not kept by the binding: bind such a one by hand.
 */
type Statement<DB> = (executor: Kysely<DB>, ...args: any[]) => unknown;

export type BoundStatements<DB, S extends Record<string, Statement<DB>>> = {
  [K in keyof S]: S[K] extends (executor: Kysely<DB>, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/** The statements with `db` as their executor. */
export function bindStatements<DB, S extends Record<string, Statement<DB>>>(db: Kysely<DB>, statements: S): BoundStatements<DB, S> {
  const bound: Record<string, unknown> = {};
  for (const [name, statement] of Object.entries(statements)) bound[name] = (...args: unknown[]) => statement(db, ...args);
  return bound as BoundStatements<DB, S>;
}
