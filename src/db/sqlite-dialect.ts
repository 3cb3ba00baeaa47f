import { type DatabaseConnection, type Driver, SqliteDialect, type SqliteDialectConfig, SqliteDriver } from 'kysely';
import { assertOutsideWriteUnit } from './write-guard.js';

/**
 * Kysely's SQLite dialect with a first-in-first-out wait for the one connection.
 *
 * Kysely's own SQLite driver guards its single connection with `while (locked) await lock`: every
 * release wakes every waiting query, one wins and the others go back to sleep. At 50 concurrent
 * requests of ~10 queries each that is hundreds of wake-ups per query: an item card cost 100 µs
 * alone and 270 µs with 50 others waiting (docs/performance.md). Here a release hands the
 * connection to the next waiter only, in arrival order; Kysely's own lock is then never contended.
 */
class FifoMutex {
  #locked = false;
  #waiters: (() => void)[] = [];
  #head = 0;

  lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  unlock(): void {
    if (this.#head < this.#waiters.length) {
      const next = this.#waiters[this.#head]!;
      this.#head += 1;
      // Compact now and then rather than shift() (linear) on every release.
      if (this.#head > 1024 && this.#head * 2 > this.#waiters.length) {
        this.#waiters = this.#waiters.slice(this.#head);
        this.#head = 0;
      }
      next(); // the lock passes to it, still held
    } else {
      this.#waiters = [];
      this.#head = 0;
      this.#locked = false;
    }
  }
}

class FifoSqliteDriver extends SqliteDriver {
  readonly #mutex = new FifoMutex();

  override async acquireConnection(): Promise<DatabaseConnection> {
    // A transaction's own statements never come here (they use the connection it holds): this is the root database.
    assertOutsideWriteUnit('a statement on the root database');
    await this.#mutex.lock();
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    this.#mutex.unlock();
  }
}

export class FifoSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new FifoSqliteDriver(this.#config);
  }
}
