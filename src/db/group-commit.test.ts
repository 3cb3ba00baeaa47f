import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from './database.js';
import { createTransactionRunner, type TransactionRunner } from './group-commit.js';
import { enableWriteGuard } from './write-guard.js';

/** Group commit on SQLite (db/group-commit.ts): units that arrive together share one COMMIT, each in its savepoint. */
describe('group commit on SQLite', () => {
  let dir: string;
  let db: Db;
  let runner: TransactionRunner;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'punchlist-group-commit-'));
    db = openDatabase(`sqlite:${join(dir, 'db.sqlite')}`);
    await sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)`.execute(db.kysely);
    runner = createTransactionRunner(db.kysely, 'sqlite');
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (text: string) => runner.run(async (trx) => void (await sql`INSERT INTO notes (text) VALUES (${text})`.execute(trx)));
  /** What another connection sees: only what committed. */
  const committed = () => {
    const other = new SQLite(join(dir, 'db.sqlite'), { readonly: true });
    try {
      return (other.prepare('SELECT text FROM notes ORDER BY id').all() as { text: string }[]).map((r) => r.text);
    } finally {
      other.close();
    }
  };

  it('runs the units that wait together in one transaction and answers each after its COMMIT', async () => {
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The first unit holds the transaction until the others are queued behind it.
    const first = runner.run(async (trx) => {
      await sql`INSERT INTO notes (text) VALUES ('first')`.execute(trx);
      await gate;
    });
    const rest = ['a', 'b', 'c'].map((text) =>
      runner
        .run(async (trx) => {
          await sql`INSERT INTO notes (text) VALUES (${text})`.execute(trx);
          log.push(`work ${text}`);
        })
        .then(() => log.push(`answered ${text}: committed ${committed().join(',')}`)),
    );
    release();
    await first;
    await Promise.all(rest);
    // All three worked before any was answered, and each answer came with all three committed.
    expect(log).toEqual([
      'work a',
      'work b',
      'work c',
      'answered a: committed first,a,b,c',
      'answered b: committed first,a,b,c',
      'answered c: committed first,a,b,c',
    ]);
  });

  it('runs the units queued within one turn of the event loop together, without waiting for a first one', async () => {
    const log: string[] = [];
    const units = ['x', 'y', 'z'].map((text) =>
      runner
        .run(async (trx) => {
          await sql`INSERT INTO notes (text) VALUES (${text})`.execute(trx);
          log.push(`work ${text}`);
        })
        .then(() => log.push(`answered ${text}`)),
    );
    await Promise.all(units);
    expect(log).toEqual(['work x', 'work y', 'work z', 'answered x', 'answered y', 'answered z']);
  });

  it('rolls back a failing unit alone: it gets its own error, the others commit', async () => {
    await insert('taken');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = runner.run(async () => gate);
    const outcomes = Promise.allSettled([
      insert('one'),
      runner.run(async (trx) => {
        await sql`INSERT INTO notes (text) VALUES ('half')`.execute(trx);
        await sql`INSERT INTO notes (text) VALUES ('taken')`.execute(trx); // UNIQUE: fails after a first insert
      }),
      runner.run(async () => {
        throw new Error('refused by the service');
      }),
      insert('two'),
    ]);
    release();
    await first;
    const [one, duplicate, refused, two] = await outcomes;
    expect(one.status).toBe('fulfilled');
    expect(two.status).toBe('fulfilled');
    expect(duplicate).toMatchObject({ status: 'rejected', reason: { code: 'SQLITE_CONSTRAINT_UNIQUE' } });
    expect(refused).toMatchObject({ status: 'rejected', reason: { message: 'refused by the service' } });
    expect(committed()).toEqual(['taken', 'one', 'two']);
  });

  it('runs a lone unit at once and keeps answering after a failure', async () => {
    await expect(insert('solo')).resolves.toBeUndefined();
    await expect(insert('solo')).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    await expect(insert('after')).resolves.toBeUndefined();
    expect(committed()).toEqual(['solo', 'after']);
  });

  it('under load: every unit answered, exactly the successful ones committed', async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `n${i % 250}`); // 50 duplicates fail
    const results = await Promise.allSettled(texts.map(insert));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(250);
    expect(committed()).toHaveLength(250);
  });

  it('with the write guard on, refuses the root database and a nested write inside a unit at once', async () => {
    enableWriteGuard(); // as every SQLite test has it (test/helpers/write-guard.ts)
    const rootRead = runner.run(async (trx) => {
      await sql`INSERT INTO notes (text) VALUES ('kept')`.execute(trx);
      // A service closing over the root database, called from a write: it would queue behind this transaction.
      await sql`SELECT 1`.execute(db.kysely).catch((err: Error) => {
        throw new Error(`refused: ${err.message}`);
      });
    });
    await expect(rootRead).rejects.toThrow(/refused: a statement on the root database inside a write transaction/);
    await expect(runner.run(() => insert('nested'))).rejects.toThrow(/a write inside a write transaction/);
    // Once the unit is over, whatever it left running may use the database again; the next write runs.
    await expect(sql`SELECT 1`.execute(db.kysely)).resolves.toBeDefined();
    await expect(insert('after')).resolves.toBeUndefined();
    expect(committed()).toEqual(['after']);
  });
});
