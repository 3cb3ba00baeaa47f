import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, cliRunner } from './helpers/cli.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { type AppContext, createContext } from '../src/context.js';
import { generateToken } from '../src/domain/token-format.js';

/**
 * The operator contract of DESIGN.md §1, through the real `bin/punchlist` run as a child process
 * (from another working directory, by absolute path) against a temp SQLite database.
 */
const TOKEN = /^plk_[0-9A-Za-z]{36}$/;
const DAY = 86_400_000;

let dir: string;
let env: Record<string, string>;

const run = cliRunner(() => ({ cwd: dir, env }));

/** Success: status 0, nothing on stderr. */
async function ok(args: string[]): Promise<string> {
  const result = await run(args);
  expect(result.stderr, `stderr of punchlist ${args.join(' ')}`).toBe('');
  expect(result.code, `exit status of punchlist ${args.join(' ')}`).toBe(0);
  return result.stdout;
}

/** Failure: non-zero status and exactly one line `punchlist: <reason>` on stderr. */
async function fails(args: string[]): Promise<string> {
  const result = await run(args);
  expect(result.code, `exit status of punchlist ${args.join(' ')}`).not.toBe(0);
  expect(result.stderr).toMatch(/^punchlist: \S[^\n]*\n$/);
  expect(result.stderr).not.toMatch(/\bat .*\.ts:\d+/);
  return result.stderr;
}

async function json<T = any>(args: string[]): Promise<T> {
  return JSON.parse(await ok(args)) as T;
}

/** A context of the test process on the same database file, to look at the rows directly. */
let ctx: AppContext;

async function counts() {
  const db = ctx.db.kysely;
  const count = async (table: 'users' | 'projects' | 'items' | 'comments' | 'answers' | 'document_links' | 'api_tokens') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    users: await count('users'),
    projects: await count('projects'),
    items: await count('items'),
    comments: await count('comments'),
    answers: await count('answers'),
    links: await count('document_links'),
    tokens: await count('api_tokens'),
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punchlist-cli-'));
  env = cliEnv(dir);
});

afterAll(async () => {
  await ctx?.close();
  await rm(dir, { recursive: true, force: true });
});

// Each case starts several CLI processes (Node + tsx each): minutes, not seconds, when the machine is busy.
describe('bin/punchlist', { timeout: 180_000 }, () => {
  it('prints help for the CLI and for each command; unknown commands and options fail with one line', async () => {
    const [help, createHelp, groupHelp] = await Promise.all([ok(['--help']), ok(['tokens', 'create', '--help']), ok(['tokens', '--help'])]);
    for (const command of [
      'serve',
      'migrate',
      'import FILE.json',
      'users create',
      'tokens create',
      'tokens list',
      'tokens revoke ID',
      'audit',
      'export [FILE]',
      'backup DIR',
      'restore DIR',
    ]) {
      expect(help).toContain(command);
    }
    expect(createHelp).toContain('--expires-at');
    expect(createHelp).toContain('items:read');
    expect(groupHelp).toContain('tokens revoke');

    const [unknownCommand, unknownSub, unknownOption] = await Promise.all([
      fails(['frobnicate']),
      fails(['tokens', 'frobnicate']),
      fails(['migrate', '--frobnicate']),
    ]);
    expect(unknownCommand).toContain('unknown command "frobnicate"');
    expect(unknownSub).toContain('unknown command "tokens frobnicate"');
    expect(unknownOption).toContain('unknown option --frobnicate');
    expect((await run([])).code).not.toBe(0);
  });

  it('migrates, with relative paths taken from the working directory', async () => {
    expect(await ok(['migrate'])).toContain('001-initial');
    const relative = await run(['migrate'], { DATABASE_URL: 'sqlite:relative/db.sqlite' });
    expect(relative.code).toBe(0);
    expect(existsSync(join(dir, 'relative', 'db.sqlite'))).toBe(true);
    ctx = await createContext(loadConfig(env));
  });

  it('creates users; a duplicate email, a missing option, a bad role or a short password fails', async () => {
    const [ann, bob] = await Promise.all([
      json(['users', 'create', '--email', 'Ann@X.test', '--name', 'Ann', '--role', 'admin', '--password', 'secret-42', '--json']),
      ok(['users', 'create', '--email', 'bob@x.test', '--name', 'Bob']),
    ]);
    expect(ann).toEqual({ id: expect.any(Number), email: 'ann@x.test', name: 'Ann', role: 'admin' });
    expect(bob).toMatch(/bob@x\.test \(member\)/);
    const [duplicate, missing, badRole, short] = await Promise.all([
      fails(['users', 'create', '--email', 'ann@x.test', '--name', 'Ann again']),
      fails(['users', 'create', '--email', 'carl@x.test']),
      fails(['users', 'create', '--email', 'carl@x.test', '--name', 'Carl', '--role', 'boss']),
      // The rule of every new password (the users service), as in the web.
      fails(['users', 'create', '--email', 'dan@x.test', '--name', 'Dan', '--password', 'secret']),
    ]);
    expect(short).toContain('password: must be at least 8 characters');
    expect(duplicate).toContain('already exists'); // an ApiError of the service, as one line
    expect(missing).toContain('missing option --name');
    expect(badRole).toContain('--role');
  });

  const raws: string[] = [];

  it('creates tokens: raw token alone on stdout, --json shape, expiry options, refusals', async () => {
    const before = Date.now();
    const raw = await ok(['tokens', 'create', '--user', 'ann@x.test', '--name', 'crm', '--scopes', 'auth:me,items:read']);
    expect(raw).toMatch(/^plk_[0-9A-Za-z]{36}\n$/);
    raws.push(raw.trim());
    expect((await ctx.tokens.authenticate(raw.trim(), '127.0.0.1')).user.email).toBe('ann@x.test');

    const [byDefault, atDate, never] = await Promise.all([
      json(['tokens', 'create', '--user', 'ann@x.test', '--name', 'default', '--scopes', 'auth:me', '--json']),
      json(['tokens', 'create', '--user', 'ann@x.test', '--name', 'dated', '--scopes', 'auth:me', '--expires-at', '2099-12-31', '--json']),
      json(['tokens', 'create', '--user', 'bob@x.test', '--name', 'forever', '--scopes', 'projects:read', '--no-expiry', '--json']),
    ]);
    for (const created of [byDefault, atDate, never]) {
      expect(Object.keys(created).sort()).toEqual(['expires_at', 'id', 'project_ids', 'scopes', 'token']);
      expect(created.project_ids).toBeNull();
      expect(created.token).toMatch(TOKEN);
      raws.push(created.token);
    }
    expect(byDefault.scopes).toEqual(['auth:me']);
    const defaultExpiry = Date.parse(byDefault.expires_at);
    expect(defaultExpiry).toBeGreaterThanOrEqual(before + 30 * DAY - 1000);
    expect(defaultExpiry).toBeLessThanOrEqual(Date.now() + 30 * DAY + 1000);
    expect(atDate.expires_at).toBe('2100-01-01T00:00:00.000Z');
    expect(never.expires_at).toBeNull();

    const tokensBefore = (await counts()).tokens;
    const refusals = await Promise.all([
      fails(['tokens', 'create', '--user', 'ann@x.test', '--name', 'x', '--scopes', 'auth:me,items:reed']),
      fails(['tokens', 'create', '--user', 'ann@x.test', '--name', 'x']),
      fails(['tokens', 'create', '--user', 'nobody@x.test', '--name', 'x', '--scopes', 'auth:me']),
      fails(['tokens', 'create', '--user', 'ann@x.test', '--name', 'x', '--scopes', 'auth:me', '--expires-at', '2099-02-30']),
      fails(['tokens', 'create', '--user', 'ann@x.test', '--name', 'x', '--scopes', 'auth:me', '--expires-at', '2020-01-01']),
      fails(['tokens', 'create', '--user', 'ann@x.test', '--name', 'x', '--scopes', 'auth:me', '--no-expiry', '--expires-in', '7d']),
    ]);
    expect(refusals[0]).toContain('items:reed');
    expect(refusals[1]).toContain('--scopes');
    expect(refusals[2]).toContain('nobody@x.test');
    expect(refusals[3]).toContain('2099-02-30');
    expect(refusals[4]).toContain('past');
    expect(refusals[5]).toContain('exclude');
    expect((await counts()).tokens).toBe(tokensBefore);
  });

  it('revokes; lists tokens with their state and never a raw token', async () => {
    const crmId = (await ctx.tokens.listTokens((await ctx.users.findByEmail('ann@x.test'))!.id)).find((t) => t.name === 'crm')!.id;
    expect(await ok(['tokens', 'revoke', String(crmId)])).toContain(String(crmId));
    await expect(ctx.tokens.authenticate(raws[0]!, '127.0.0.1')).rejects.toMatchObject({ code: 'token_revoked' });

    const [listed, table, unknown, badId] = await Promise.all([
      json<any[]>(['tokens', 'list', '--user', 'ann@x.test', '--json']),
      ok(['tokens', 'list', '--user', 'ann@x.test']),
      fails(['tokens', 'revoke', '999999']),
      fails(['tokens', 'revoke', 'abc']),
    ]);
    expect(listed).toHaveLength(3);
    for (const t of listed) {
      expect(Object.keys(t).sort()).toEqual(
        ['created_at', 'expires_at', 'id', 'last_used_at', 'last_used_ip', 'name', 'project_ids', 'revoked_at', 'scopes', 'state'].sort(),
      );
    }
    const crm = listed.find((t) => t.id === crmId);
    expect(crm).toMatchObject({ name: 'crm', scopes: ['auth:me', 'items:read'], state: 'revoked', last_used_ip: '127.0.0.1' });
    expect(crm.revoked_at).toEqual(expect.any(String));
    expect(crm.last_used_at).toEqual(expect.any(String)); // authenticated once above
    expect(listed.filter((t) => t.id !== crmId).map((t) => t.state)).toEqual(['active', 'active']);
    expect(table).toMatch(/^ID\s+NAME\s+STATE/);
    expect(table).toContain('revoked');
    expect(table).toContain('dated');
    expect(unknown).toContain('not found');
    expect(badId).toContain('abc');
    for (const output of [JSON.stringify(listed), table]) {
      expect(output).not.toContain('plk_');
      for (const raw of raws) expect(output).not.toContain(raw);
    }
  });

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
    const file = join(dir, 'fixture.json');
    await writeFile(file, JSON.stringify(fixture()));
    const before = await counts();
    expect(await ok(['import', file])).toMatch(/2 users.*1 projects.*2 items.*2 tokens/);
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
    const item = await ctx.db.kysely
      .selectFrom('items')
      .select(['id', 'text', 'project_id', 'checklist_id'])
      .where('id', '=', 501)
      .executeTakeFirst();
    expect(item).toEqual({ id: 501, text: 'Проверка документов', project_id: 201, checklist_id: 401 });
    expect((await ctx.tokens.authenticate(fixtureRaw, '127.0.0.1')).token.id).toBe(801);
    const states = await json<any[]>(['tokens', 'list', '--user', 'mia@fixture.test', '--json']);
    expect(Object.fromEntries(states.map((t) => [t.id, t.state]))).toEqual({ 801: 'active', 802: 'expired' });

    // The same file again: refused with a clear reason, nothing changed.
    expect(await fails(['import', file])).toMatch(/already exists.*nothing was imported/);
    expect(await counts()).toEqual(after);

    // A token whose raw value is not of the token format.
    const malformed = fixture();
    const badRaw = {
      users: [{ id: 103, email: 'new@fixture.test', name: 'New' }],
      tokens: [{ ...malformed.tokens[0]!, id: 803, user_id: 103, raw: 'plk_notatoken' }],
    };
    await writeFile(join(dir, 'bad-raw.json'), JSON.stringify(badRaw));
    expect(await fails(['import', join(dir, 'bad-raw.json')])).toContain('token format');
    // A member that refers to a user who does not exist.
    const missingUser = {
      users: [{ id: 104, email: 'newer@fixture.test', name: 'Newer' }],
      projects: [{ id: 202, name: 'Orphan', members: [{ user_id: 999, role: 'observer' }] }],
    };
    await writeFile(join(dir, 'missing-user.json'), JSON.stringify(missingUser));
    expect(await fails(['import', join(dir, 'missing-user.json')])).toContain('nothing was imported');
    await writeFile(join(dir, 'not-json.json'), '{"users": [');
    expect(await fails(['import', join(dir, 'not-json.json')])).toContain('not valid JSON');
    expect(await fails(['import', join(dir, 'absent.json')])).toContain('absent.json');
    expect(await counts()).toEqual(after);
    expect(await ctx.users.findByEmail('newer@fixture.test')).toBeUndefined();
  });

  it('tokens create --projects limits a token to projects the user sees; anything else fails and creates nothing', async () => {
    const limited = await json([
      'tokens',
      'create',
      '--user',
      'ann@x.test',
      '--name',
      'one project',
      '--scopes',
      'auth:me',
      '--projects',
      '201,201',
      '--json',
    ]);
    expect(limited.project_ids).toEqual([201]);
    expect((await ctx.tokens.authenticate(limited.token, '127.0.0.1')).user.projectIds).toEqual([201]);
    const listed = await json<any[]>(['tokens', 'list', '--user', 'ann@x.test', '--json']);
    expect(listed.find((t) => t.id === limited.id).project_ids).toEqual([201]);
    expect(listed.filter((t) => t.id !== limited.id).map((t) => t.project_ids)).toEqual(listed.slice(1).map(() => null));
    expect(await ok(['tokens', 'list', '--user', 'ann@x.test'])).toMatch(/PROJECTS[\s\S]*one project.*\b201\n/);

    const before = (await counts()).tokens;
    const [unseen, unknown, malformed, empty] = await Promise.all([
      // bob is a member of nothing: project 201 does not exist for him.
      fails(['tokens', 'create', '--user', 'bob@x.test', '--name', 'x', '--scopes', 'auth:me', '--projects', '201']),
      fails(['tokens', 'create', '--user', 'ann@x.test', '--name', 'x', '--scopes', 'auth:me', '--projects', '201,999']),
      fails(['tokens', 'create', '--user', 'ann@x.test', '--name', 'x', '--scopes', 'auth:me', '--projects', '1,abc']),
      fails(['tokens', 'create', '--user', 'ann@x.test', '--name', 'x', '--scopes', 'auth:me', '--projects', ',']),
    ]);
    expect(unseen).toContain('project 201');
    expect(unknown).toContain('project 999');
    expect(malformed).toContain('abc');
    expect(empty).toContain('--projects');
    expect((await counts()).tokens).toBe(before);
  });

  it('shows the audit records of API calls, newest first, with filters', async () => {
    const app = await buildApp(ctx, { logger: false });
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
      expect((await fetch(`${base}/auth/me.php`, { headers: { authorization: `Bearer ${raws[0]}` } })).status).toBe(401);
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
    const file = join(dir, 'backup.json');
    const [toStdout, toFile, badDir, twoFiles, help] = await Promise.all([
      run(['export']),
      run(['export', file, '--quiet']),
      fails(['export', join(dir, 'no-such-dir', 'x.json')]),
      fails(['export', 'a.json', 'b.json']),
      ok(['export', '--help']),
    ]);
    expect(toStdout.code).toBe(0);
    expect(toStdout.stderr).toMatch(/^exported \d+ users, .*\d+ audit_log, \d+ events to stdout\n$/);
    const fixture = JSON.parse(toStdout.stdout);
    expect(Object.keys(fixture)).toEqual(['users', 'projects', 'tokens', 'audit_log', 'events']);
    expect(fixture.users.map((u: { email: string }) => u.email)).toContain('mia@fixture.test');
    expect(fixture.tokens.find((t: { id: number }) => t.id === 801)).toMatchObject({
      name: 'imported',
      token_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(fixture.audit_log).toHaveLength(3);
    expect(toStdout.stdout).not.toContain(fixtureRaw);

    expect(toFile).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(fixture);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).filter((name) => name.includes('.partial-'))).toEqual([]);

    // Into an empty database: the same export comes back out.
    const copy = { DATABASE_URL: `sqlite:${join(dir, 'copy.sqlite')}` };
    expect((await run(['import', file], copy)).code).toBe(0);
    const copied = await run(['export'], copy);
    expect(JSON.parse(copied.stdout)).toEqual(fixture);

    expect(badDir).toContain('cannot write');
    expect(twoFiles).toContain('unexpected argument');
    expect(help).toContain('Not exported');
  });
});
