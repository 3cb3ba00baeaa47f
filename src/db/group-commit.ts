import { type Kysely, sql, type Transaction } from 'kysely';
import type { Dialect } from './database.js';
import type { Database } from './tables.js';
import { asWriteUnit, assertOutsideWriteUnit } from './write-guard.js';

/** Runs a unit of work in a transaction; answers once that work has committed (or throws, nothing of it kept). */
export interface TransactionRunner {
  run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
}

/** Writes sharing one COMMIT at most: a batch holds the one SQLite connection for a few milliseconds. */
const MAX_BATCH = 32;

interface Job {
  work: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit (docs/performance.md). On SQLite every write transaction takes the one connection in turn,
 * and each COMMIT appends the pages it changed to the WAL: the same last pages of the audit log, the events
 * and the history, again for every write. Here the writes that arrive within one turn of the event loop, or
 * while a batch runs, run together in one transaction, each inside its own SAVEPOINT: a write that fails is
 * rolled back alone and gets its error; the others commit together, and each is answered only after that
 * COMMIT.
 *
 * On PostgreSQL each unit runs in its own transaction, as before: writes of different items run in parallel
 * on the pool, and the server already shares WAL flushes between concurrent commits.
 */
export function createTransactionRunner(db: Kysely<Database>, dialect: Dialect): TransactionRunner {
  if (dialect === 'postgres') return { run: (work) => db.transaction().execute(work) };
  let queue: Job[] = [];
  let running = false;

  async function runBatch(jobs: Job[]) {
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      await db.transaction().execute(async (trx) => {
        for (const job of jobs) {
          await sql`SAVEPOINT unit`.execute(trx);
          try {
            outcomes.push({ ok: true, value: await asWriteUnit(() => job.work(trx)) });
            await sql`RELEASE unit`.execute(trx);
          } catch (error) {
            outcomes.push({ ok: false, value: error });
            await sql`ROLLBACK TO unit`.execute(trx);
            await sql`RELEASE unit`.execute(trx);
          }
        }
      });
    } catch (error) {
      // Nothing of the batch committed: every unit gets the error (its own, if it had one).
      jobs.forEach((job, i) => job.reject(outcomes[i] && !outcomes[i].ok ? outcomes[i].value : error));
      return;
    }
    jobs.forEach((job, i) => (outcomes[i]!.ok ? job.resolve(outcomes[i]!.value) : job.reject(outcomes[i]!.value)));
  }

  async function drain() {
    try {
      while (queue.length > 0) {
        const jobs = queue.slice(0, MAX_BATCH);
        queue = queue.slice(jobs.length);
        await runBatch(jobs);
      }
    } finally {
      running = false;
    }
  }

  return {
    run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        // Queued behind the batch that runs the caller, it would never run: say so rather than hang.
        assertOutsideWriteUnit('a write');
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (running) return;
        running = true;
        // better-sqlite3 answers at once, so a whole transaction runs within one turn of the event loop and
        // no other request would ever join it: the batch starts a turn later, once the requests that have
        // arrived meanwhile have queued their writes.
        setImmediate(() => void drain());
      });
    },
  };
}
