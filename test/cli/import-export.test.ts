import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliFile } from '../helpers/cli.js';
import { makeToken, makeUser } from '../helpers/factories.js';
import { buildApp } from '../../src/app.js';
import { generateToken } from '../../src/domain/token-format.js';

/**
 * `bin/punchlist import`, `audit` and `export` (docs/design.md §1) against a temp SQLite database: a fixture keeps its
 * ids, the API calls made on it are listed, and the export comes back whole. The commands run in the test
 * process (test/helpers/cli.ts); the first import and its refused repetition go through the real binary.
 */
const { cli, run, ok, fails, json, counts, spawned } = useCliFile({ context: true });

// The cases through bin/punchlist start a process (Node + tsx): seconds, more when the machine is busy.
describe('bin/punchlist import, audit, export', { timeout: 180_000 }, () => {
  const fixtureRaw = generateToken();

  function fixture() {
    return {
      users: [
        { id: 101, email: 'mia@fixture.test', name: 'Mia', role: 'member', password: 'pw' },
        { id: 102, email: 'ivan@fixture.test', name: 'Иван', role: 'member' },
      ],
      projects: [
        {
          id: 201,
          name: 'Imported project',
          members: [{ user_id: 102, role: 'executor', sections: [301], checklists: null }],
          // docs/design.md §21: a category, a choice field and a retired number field whose value is kept.
          categories: [{ id: 901, name: 'Electrical' }],
          fields: [
            { id: 911, name: 'Severity', kind: 'choice', options: ['low', 'high'], required: false },
            { id: 912, name: 'Old cost', kind: 'number', retired: true },
          ],
          sections: [
            {
              id: 301,
              name: 'Section',
              checklists: [
                {
                  id: 401,
                  name: 'Checklist',
                  items: [
                    {
                      id: 501,
                      text: 'Проверка документов',
                      status: 'in_progress',
                      participants: [102],
                      category_id: 901,
                      fields: { Severity: 'high', 'Old cost': '12.5' },
                      document_links: [{ kind: 'document', title: 'Plan', url: 'https://example.test/plan' }],
                      comments: [{ id: 601, author_id: 102, text: 'On it' }],
                      answers: [{ id: 701, author_id: 102, text: 'Done', status: 'approved', document_links: [] }],
                    },
                    { id: 502, text: 'Second item' },
                  ],
                },
              ],
            },
          ],
        },
      ],
      tokens: [
        { id: 801, user_id: 101, name: 'imported', raw: fixtureRaw, scopes: ['auth:me', 'projects:read'], expires_at: null },
        { id: 802, user_id: 101, name: 'old', raw: generateToken(), scopes: ['auth:me'], expires_at: '2020-01-01T00:00:00Z' },
      ],
    };
  }

  it('imports a fixture keeping its ids; refuses a second import, a malformed raw token and a missing user, changing nothing', async () => {
    const file = join(cli.dir, 'fixture.json');
    await writeFile(file, JSON.stringify(fixture()));
    const before = await counts();
    expect(await spawned.ok(['import', file])).toMatch(/2 users.*1 projects.*2 items.*2 tokens/);
    const after = await counts();
    expect(after).toEqual({
      users: before.users + 2,
      projects: before.projects + 1,
      items: before.items + 2,
      comments: before.comments + 1,
      answers: before.answers + 1,
      links: before.links + 1,
      tokens: before.tokens + 2,
    });
    const item = await cli.ctx.db.kysely
      .selectFrom('items')
      .select(['id', 'text', 'project_id', 'checklist_id'])
      .where('id', '=', 501)
      .executeTakeFirst();
    expect(item).toEqual({ id: 501, text: 'Проверка документов', project_id: 201, checklist_id: 401 });
    expect((await cli.ctx.tokens.authenticate(fixtureRaw, '127.0.0.1')).token.id).toBe(801);
    const states = await json<any[]>(['tokens', 'list', '--user', 'mia@fixture.test', '--json']);
    expect(Object.fromEntries(states.map((t) => [t.id, t.state]))).toEqual({ 801: 'active', 802: 'expired' });

    // The same file again: refused with a clear reason, nothing changed.
    expect(await spawned.fails(['import', file])).toMatch(/already exists.*nothing was imported/);
    expect(await counts()).toEqual(after);

    // A token whose raw value is not of the token format.
    const malformed = fixture();
    const badRaw = {
      users: [{ id: 103, email: 'new@fixture.test', name: 'New' }],
      tokens: [{ ...malformed.tokens[0]!, id: 803, user_id: 103, raw: 'plk_notatoken' }],
    };
    await writeFile(join(cli.dir, 'bad-raw.json'), JSON.stringify(badRaw));
    expect(await fails(['import', join(cli.dir, 'bad-raw.json')])).toContain('token format');
    // A member that refers to a user who does not exist.
    const missingUser = {
      users: [{ id: 104, email: 'newer@fixture.test', name: 'Newer' }],
      projects: [{ id: 202, name: 'Orphan', members: [{ user_id: 999, role: 'observer' }] }],
    };
    await writeFile(join(cli.dir, 'missing-user.json'), JSON.stringify(missingUser));
    expect(await fails(['import', join(cli.dir, 'missing-user.json')])).toContain('nothing was imported');
    // docs/design.md §21: a value of the wrong kind, a field the project does not have, refused as a whole.
    const badValue = {
      projects: [
        {
          id: 203,
          name: 'Bad values',
          fields: [{ id: 921, name: 'Cost', kind: 'number' }],
          sections: [
            { id: 321, name: 'S', checklists: [{ id: 421, name: 'C', items: [{ id: 521, text: 'X', fields: { Cost: 'much' } }] }] },
          ],
        },
      ],
    };
    await writeFile(join(cli.dir, 'bad-value.json'), JSON.stringify(badValue));
    expect(await fails(['import', join(cli.dir, 'bad-value.json')])).toMatch(/item 521: fields\.Cost: Cost: must be a number/);
    badValue.projects[0]!.sections[0]!.checklists[0]!.items[0]!.fields = { Colour: 'red' } as never;
    await writeFile(join(cli.dir, 'bad-value.json'), JSON.stringify(badValue));
    expect(await fails(['import', join(cli.dir, 'bad-value.json')])).toContain('"Colour" is not a field of project 203');
    await writeFile(join(cli.dir, 'not-json.json'), '{"users": [');
    expect(await fails(['import', join(cli.dir, 'not-json.json')])).toContain('not valid JSON');
    expect(await fails(['import', join(cli.dir, 'absent.json')])).toContain('absent.json');
    expect(await counts()).toEqual(after);
    expect(await cli.ctx.users.findByEmail('newer@fixture.test')).toBeUndefined();
  });

  it('refuses a fixture with a key it does not know, as a whole, naming the first one with its path (issue 46)', async () => {
    const before = await counts();
    // What a newer version's export could hold: an item's key this version has no place for, and further on a
    // whole list. Nothing of the file is imported, its users included.
    const item = (id: number, more: Record<string, unknown> = {}) => ({ id, text: `Item ${id}`, status: 'pending', ...more });
    const newer: Record<string, unknown> = {
      users: [{ id: 151, email: 'newer-export@fixture.test', name: 'Newer' }],
      projects: [
        {
          id: 251,
          name: 'From a newer version',
          sections: [
            {
              id: 351,
              name: 'S',
              checklists: [{ id: 451, name: 'C', items: [item(551), item(552, { crew_id: 7, photos_markup: [] })] }],
            },
          ],
        },
      ],
      crews: [{ id: 1, name: 'Acme' }],
    };
    await writeFile(join(cli.dir, 'newer.json'), JSON.stringify(newer));
    const refusal = await spawned.fails(['import', join(cli.dir, 'newer.json')]);
    expect(refusal).toBe(
      'punchlist: unknown key projects[0].sections[0].checklists[0].items[1].crew_id in the fixture: nothing was imported ' +
        '(a file written by a newer version of Punchlist, or a misspelt key?)\n',
    );
    // The same file without them imports (so the refusal was the unknown keys alone); then a misspelt top-level key.
    (newer.projects as { sections: { checklists: { items: unknown[] }[] }[] }[])[0]!.sections[0]!.checklists[0]!.items[1] = item(552);
    await writeFile(join(cli.dir, 'newer.json'), JSON.stringify(newer));
    expect(await fails(['import', join(cli.dir, 'newer.json')])).toMatch(/unknown key crews in the fixture/);
    expect(await counts()).toEqual(before);
    await writeFile(join(cli.dir, 'typo.json'), JSON.stringify({ users: [{ id: 152, email: 'typo@fixture.test', nmae: 'Typo' }] }));
    expect(await fails(['import', join(cli.dir, 'typo.json')])).toMatch(/unknown key users\[0\]\.nmae in the fixture/);
    delete newer.crews;
    await writeFile(join(cli.dir, 'newer.json'), JSON.stringify(newer));
    expect(await ok(['import', join(cli.dir, 'newer.json')])).toMatch(/1 users.*1 projects.*2 items/);
    expect(await cli.ctx.users.findByEmail('typo@fixture.test')).toBeUndefined();
  });

  it('shows the audit records of API calls, newest first, with filters', async () => {
    // A token revoked by the operator: its call is recorded with token_revoked.
    const revokedToken = await makeToken(cli, await makeUser(cli, { email: 'ann@x.test', name: 'Ann' }), ['auth:me']);
    expect(await ok(['tokens', 'revoke', String(revokedToken.id)])).toContain(String(revokedToken.id));
    const app = await buildApp(cli.ctx, { logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const address = app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/external/v1`;
      const headers = { authorization: `Bearer ${fixtureRaw}`, 'user-agent': 'cli-test/1' };
      // A few milliseconds apart so that the records' times differ (--since is checked below).
      const pause = () => new Promise((done) => setTimeout(done, 5));
      // An unknown parameter is refused (422), and its raw query is still recorded.
      expect((await fetch(`${base}/auth/me.php?probe=1`, { headers })).status).toBe(422);
      await pause();
      expect((await fetch(`${base}/auth/me.php`, { headers: { authorization: `Bearer ${revokedToken.token}` } })).status).toBe(401);
      await pause();
      expect((await fetch(`${base}/auth/me.php`, { headers })).status).toBe(200);
    } finally {
      await app.close();
    }

    const records = await json<any[]>(['audit', '--json']);
    expect(records).toHaveLength(3);
    for (const r of records) {
      expect(Object.keys(r)).toEqual([
        'request_id',
        'at',
        'token_id',
        'user_id',
        'method',
        'path',
        'query',
        'status',
        'error_code',
        'ip',
        'user_agent',
        'duration_ms',
        'entity_type',
        'entity_id',
      ]);
    }
    const [newest, revoked, oldest] = records;
    expect(newest).toMatchObject({
      token_id: 801,
      user_id: 101,
      method: 'GET',
      path: '/api/external/v1/auth/me.php',
      query: '',
      status: 200,
    });
    expect(revoked).toMatchObject({ status: 401, error_code: 'token_revoked' });
    expect(oldest).toMatchObject({
      token_id: 801,
      query: 'probe=1',
      status: 422,
      error_code: 'validation_error',
      user_agent: 'cli-test/1',
      ip: '127.0.0.1',
    });
    expect(newest.at >= oldest.at).toBe(true);
    expect(JSON.stringify(records)).not.toContain('plk_');

    const [byToken, byUserSince, limited, table, badSince] = await Promise.all([
      json<any[]>(['audit', '--token', '801', '--json']),
      json<any[]>(['audit', '--user', 'mia@fixture.test', '--since', revoked.at, '--json']),
      json<any[]>(['audit', '--limit', '1', '--json']),
      ok(['audit']),
      fails(['audit', '--since', 'yesterday']),
    ]);
    expect(byToken.map((r) => r.request_id)).toEqual([newest.request_id, oldest.request_id]);
    expect(byUserSince.map((r) => r.request_id)).toEqual([newest.request_id]);
    expect(limited.map((r) => r.request_id)).toEqual([newest.request_id]);
    expect(table).toMatch(/^AT\s+STATUS\s+METHOD\s+PATH/);
    expect(table).toContain('/api/external/v1/auth/me.php?probe=1');
    expect(badSince).toContain('--since');

    // NDJSON: the same records and fields, one object a line, the filters honoured.
    const [stream, filtered, both] = await Promise.all([
      ok(['audit', '--ndjson']),
      ok(['audit', '--ndjson', '--token', '801', '--limit', '1']),
      fails(['audit', '--json', '--ndjson']),
    ]);
    expect(stream.endsWith('\n')).toBe(true);
    expect(
      stream
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(records);
    expect(
      filtered
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([newest]);
    expect(both).toContain('exclude');
  });

  it('exports the whole database to stdout or to a file only its owner can read; import takes it back', async () => {
    const file = join(cli.dir, 'backup.json');
    const [toStdout, toFile, badDir, twoFiles, help] = await Promise.all([
      run(['export']),
      run(['export', file, '--quiet']),
      fails(['export', join(cli.dir, 'no-such-cli.dir', 'x.json')]),
      fails(['export', 'a.json', 'b.json']),
      ok(['export', '--help']),
    ]);
    expect(toStdout.code).toBe(0);
    expect(toStdout.stderr).toMatch(/^exported \d+ users, .*\d+ audit_log, \d+ events to stdout\n$/);
    const fixture = JSON.parse(toStdout.stdout);
    expect(Object.keys(fixture)).toEqual(['companies', 'users', 'projects', 'tokens', 'audit_log', 'events']);
    expect(fixture.users.map((u: { email: string }) => u.email)).toContain('mia@fixture.test');
    expect(fixture.tokens.find((t: { id: number }) => t.id === 801)).toMatchObject({
      name: 'imported',
      token_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(fixture.audit_log).toHaveLength(3);
    expect(toStdout.stdout).not.toContain(fixtureRaw);
    const imported = fixture.projects.find((p: { id: number }) => p.id === 201);
    // With when each was made (and retired): an export's round trip keeps them.
    expect(imported.categories).toMatchObject([{ id: 901, name: 'Electrical', position: 1 }]);
    expect(imported.categories[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(imported.fields).toMatchObject([
      {
        id: 911,
        name: 'Severity',
        kind: 'choice',
        options: ['low', 'high'],
        required: false,
        retired: false,
        position: 1,
        retired_at: null,
      },
      { id: 912, name: 'Old cost', kind: 'number', options: [], required: false, retired: true, position: 2 },
    ]);
    expect(imported.fields[1].retired_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(imported.sections[0].checklists[0].items[0]).toMatchObject({
      category_id: 901,
      fields: { Severity: 'high', 'Old cost': '12.5' },
    });

    expect(toFile).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(fixture);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // A relative FILE is relative to the command's working directory.
    expect(await ok(['export', 'relative.json', '--quiet'])).toBe('');
    expect(JSON.parse(await readFile(join(cli.dir, 'relative.json'), 'utf8'))).toEqual(fixture);
    expect((await readdir(cli.dir)).filter((name) => name.includes('.partial-'))).toEqual([]);

    // Into an empty database: the same export comes back out.
    const copy = { DATABASE_URL: `sqlite:${join(cli.dir, 'copy.sqlite')}` };
    expect((await run(['import', file], copy)).code).toBe(0);
    const copied = await run(['export'], copy);
    expect(JSON.parse(copied.stdout)).toEqual(fixture);

    expect(badDir).toContain('cannot write');
    expect(twoFiles).toContain('unexpected argument');
    expect(help).toContain('Not exported');
  });
});
