import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/** Stands for a parameter while a precompiled query is built; replaced by the value at each run. */
class Placeholder {
  constructor(readonly name: string) {}
}

export interface Precompiled<DB, P, R> {
  /** Runs the query with these values (on `executor`, e.g. a transaction, or the database it was built on). */
  execute(values: P, executor?: Kysely<DB>): Promise<R[]>;
  executeTakeFirst(values: P, executor?: Kysely<DB>): Promise<R | undefined>;
  /** For INSERT/UPDATE/DELETE without RETURNING. */
  run(values: P, executor?: Kysely<DB>): Promise<void>;
}

type Build<DB, P, R> = (db: Kysely<DB>, params: P) => Compilable<R>;

/**
 * The SQL texts of precompiled queries, each with a statement name: on PostgreSQL they run as named
 * prepared statements (db/database.ts), parsed and planned once per connection instead of on every call.
 */
const statementNames = new Map<string, string>();

/** The prepared-statement name of a precompiled query's SQL; undefined for any other SQL. */
export function preparedStatementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

/**
 * Compiles what `build` makes of `params` (objects whose properties are placeholders, made by `placeholders`):
 * the compiled query and, per bound parameter, the placeholder it stands for (null: a constant of the query).
 */
function compileSlots<R>(build: (placeholders: (prefix: string) => Record<string, unknown>) => Compilable<R>) {
  const used = new Set<string>();
  const placeholders = (prefix: string) =>
    new Proxy(
      {},
      {
        get: (_target, name) => {
          if (typeof name !== 'string') return undefined;
          used.add(prefix + name);
          return new Placeholder(prefix + name);
        },
      },
    ) as Record<string, unknown>;
  const compiled: CompiledQuery<R> = build(placeholders).compile();
  if (!statementNames.has(compiled.sql)) statementNames.set(compiled.sql, `punchlist_${statementNames.size + 1}`);
  const slots = compiled.parameters.map((value) => (value instanceof Placeholder ? value.name : null));
  // A placeholder Kysely did not bind (a list, an inlined value) would run with the wrong value: fail at once.
  const bound = new Set(slots);
  for (const name of used) {
    if (!bound.has(name)) throw new Error(`precompiled query: "${name}" is not a bound parameter of ${compiled.sql}`);
  }
  return { compiled, slots };
}

/** Compiles `build` with placeholders; returns the compiled query and a binder for values. */
function compile<DB, P extends Record<string, unknown>, R>(db: Kysely<DB>, build: Build<DB, P, R>) {
  const { compiled, slots } = compileSlots((placeholders) => build(db, placeholders('') as P));
  return (values: P): CompiledQuery<R> => ({
    ...compiled,
    // An absent optional value is SQL NULL, as Kysely would have written it.
    parameters: slots.map((name, i) => (name === null ? compiled.parameters[i] : (values[name] ?? null))),
  });
}

/** Runs a compiled SELECT at once and returns its rows, or undefined to leave it to Kysely's queue. */
type DirectReader = (query: CompiledQuery) => unknown[] | undefined;

const directReaders = new WeakMap<object, DirectReader>();

/**
 * Lets the precompiled SELECTs run on `db` (the database handle itself, never a transaction) go through
 * `reader` (db/database.ts: SQLite, when no transaction holds its connection), skipping Kysely's
 * connection queue, driver and result pipeline (docs/performance.md, "Direct reads on SQLite").
 */
export function setDirectReader<DB>(db: Kysely<DB>, reader: DirectReader): void {
  directReaders.set(db, reader);
}

function runner<DB, P, R>(bindFor: (executor: Kysely<DB>) => (values: P) => CompiledQuery<R>, db?: Kysely<DB>): Precompiled<DB, P, R> {
  const execute = async (values: P, executor: Kysely<DB> | undefined = db) => {
    if (!executor) throw new Error('precompiled query: no database to run on');
    const query = bindFor(executor)(values);
    const direct = query.query.kind === 'SelectQueryNode' ? directReaders.get(executor)?.(query) : undefined;
    return direct ? (direct as R[]) : (await executor.executeQuery(query)).rows;
  };
  return {
    execute,
    async executeTakeFirst(values, executor) {
      return (await execute(values, executor))[0];
    },
    async run(values, executor) {
      await execute(values, executor);
    },
  };
}

/**
 * A query built and compiled by Kysely once, then run many times with new values: on the hot paths
 * the query builder and compiler cost more than SQLite running the query (profile of items/get: ~35 %
 * of the item card's CPU in Kysely's builder, `freeze` and the compiler's visitor). The SQL is the one
 * Kysely compiles for the database's dialect, so this stays dialect-agnostic.
 *
 * `build` receives the database and `params`, whose every property is a placeholder: use them only
 * where Kysely makes a bound parameter of a value (comparisons, SET, VALUES, LIMIT), never for lists
 * (`in`) or anything Kysely writes into the SQL text (identifiers, `is null`); that is checked.
 */
export function precompile<DB, P extends Record<string, unknown>, R>(db: Kysely<DB>, build: Build<DB, P, R>): Precompiled<DB, P, R> {
  const bind = compile(db, build);
  return runner(() => bind, db);
}

/**
 * Like precompile(), for helpers that only ever receive a transaction: compiled at the first run, once
 * per database handle (transactions share their database's adapter).
 */
export function precompileLazily<DB, P extends Record<string, unknown>, R>(build: Build<DB, P, R>): Precompiled<DB, P, R> {
  const byAdapter = new WeakMap<object, (values: P) => CompiledQuery<R>>();
  return runner((executor) => {
    const adapter = executor.getExecutor().adapter;
    let bind = byAdapter.get(adapter);
    if (!bind) {
      bind = compile(executor, build);
      byAdapter.set(adapter, bind);
    }
    return bind;
  });
}

/**
 * A multi-row INSERT (or any query over a list of rows) compiled once for exactly `size` rows: `build` receives
 * `size` rows of placeholders (one per column), and each run binds the properties of `size` row objects by position, without
 * building a map of named values. Compiled at the first run, once per database handle, like precompileLazily().
 */
export function precompileRowsLazily<DB, Row extends Record<string, unknown>, R>(
  size: number,
  columns: readonly (keyof Row & string)[],
  build: (db: Kysely<DB>, rows: Row[]) => Compilable<R>,
): Precompiled<DB, readonly Row[], R> {
  const byAdapter = new WeakMap<object, (rows: readonly Row[]) => CompiledQuery<R>>();
  return runner((executor) => {
    const adapter = executor.getExecutor().adapter;
    let bind = byAdapter.get(adapter);
    if (!bind) {
      const { compiled, slots } = compileSlots((placeholders) =>
        build(
          executor,
          Array.from({ length: size }, (_, i) => {
            const row = placeholders(`${i}.`);
            return Object.fromEntries(columns.map((column) => [column, row[column]])) as Row;
          }),
        ),
      );
      const positions = slots.map((name) => {
        if (name === null) return null;
        const dot = name.indexOf('.');
        return { row: Number(name.slice(0, dot)), column: name.slice(dot + 1) };
      });
      bind = (rows) => {
        if (rows.length !== size) throw new Error(`precompiled query: ${rows.length} rows given, ${size} expected`);
        return {
          ...compiled,
          parameters: positions.map((p, i) => (p === null ? compiled.parameters[i] : (rows[p.row]![p.column] ?? null))),
        };
      };
      byAdapter.set(adapter, bind);
    }
    return bind;
  });
}
