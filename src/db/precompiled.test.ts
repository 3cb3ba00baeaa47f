import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from './database.js';
import { precompile, precompileRowsLazily } from './precompiled.js';

interface Notes {
  notes: { id: number; text: string };
}

// SQLite's direct reads (db/database.ts): a precompiled SELECT outside a transaction skips Kysely's queue.
describe('precompiled SELECTs on SQLite', () => {
  let dir: string;
  let handle: Db;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'punchlist-precompiled-'));
    handle = openDatabase(`sqlite:${join(dir, 'test.db')}`);
    await sql`create table notes (id integer primary key, text text not null)`.execute(handle.kysely);
    await sql`insert into notes (id, text) values (1, 'committed')`.execute(handle.kysely);
  });

  afterEach(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // The handle itself (withTables() would make another instance, without the direct reader).
  const notesDb = (h: Db) => h.kysely as unknown as Kysely<Notes>;
  const noteQuery = (h: Db) => {
    const db = notesDb(h);
    return precompile(db, (db, p: { id: number }) => db.selectFrom('notes').select('text').where('id', '=', p.id));
  };

  it('answer with the committed rows, and with nothing for an unknown id', async () => {
    const note = noteQuery(handle);
    expect(await note.execute({ id: 1 })).toEqual([{ text: 'committed' }]);
    expect(await note.executeTakeFirst({ id: 2 })).toBeUndefined();
  });

  it('a multi-row INSERT compiled once binds its rows by position, and refuses another number of rows', async () => {
    const db = notesDb(handle);
    const insert = precompileRowsLazily(2, ['id', 'text'], (db: Kysely<Notes>, rows: { id: number; text: string }[]) =>
      db.insertInto('notes').values(rows).returning(['id', 'text']),
    );
    const rows = (first: number) => [
      { id: first, text: `note ${first}` },
      { id: first + 1, text: `note ${first + 1}` },
    ];
    await db.transaction().execute(async (trx) => {
      expect(await insert.execute(rows(2), trx)).toEqual(rows(2));
      await insert.run(rows(4), trx);
    });
    await expect(insert.run([{ id: 9, text: 'alone' }], db)).rejects.toThrow('1 rows given, 2 expected');
    expect(await db.selectFrom('notes').select(['id', 'text']).where('id', '>', 1).orderBy('id').execute()).toEqual([
      ...rows(2),
      ...rows(4),
    ]);
  });

  it('never see what another transaction has not committed: they wait for it, and see its outcome', async () => {
    const note = noteQuery(handle);
    const db = notesDb(handle);
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));

    // A write that is rolled back, paused between its UPDATE and its end (as a request awaiting something).
    const rolledBack = db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('notes').set({ text: 'uncommitted' }).where('id', '=', 1).execute();
        written();
        await paused;
        throw new Error('rolled back');
      })
      .catch((err: Error) => err.message);
    await wrote;
    const read = note.executeTakeFirst({ id: 1 });
    let settled = false;
    void read.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    resume();
    expect(await rolledBack).toBe('rolled back');
    expect(await read).toEqual({ text: 'committed' });

    // The same with a commit: the read queued during the transaction sees the new text.
    let resume2!: () => void;
    const paused2 = new Promise<void>((resolve) => (resume2 = resolve));
    let written2!: () => void;
    const wrote2 = new Promise<void>((resolve) => (written2 = resolve));
    const committed = db.transaction().execute(async (trx) => {
      await trx.updateTable('notes').set({ text: 'new' }).where('id', '=', 1).execute();
      written2();
      await paused2;
    });
    await wrote2;
    const read2 = note.executeTakeFirst({ id: 1 });
    resume2();
    await committed;
    expect(await read2).toEqual({ text: 'new' });
  });
});
