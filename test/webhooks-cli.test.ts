import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, cliRunner, inProcessRunner, type Run } from './helpers/cli.js';
import { loadConfig } from '../src/shared/config.js';
import { type AppContext, createContext } from '../src/composition/context.js';
import { EVENT_TYPES } from '../src/domain/values.js';
import { buildWorkspace, USERS } from './helpers/workspace.js';

/**
 * `bin/punchlist webhooks create|list|disable` (docs/design.md §1, §11) against a temp SQLite database holding the
 * standard test workspace. The commands run in the test process (test/helpers/cli.ts); the first secret and a
 * malformed id go through the real binary, a child process.
 */
const SECRET = /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/;
/** Loopback receivers are refused unless the environment allows them: the successful cases do. */
const ALLOW = { WEBHOOK_ALLOW_PRIVATE: '1' };

let dir: string;
let env: Record<string, string>;
let ctx: AppContext;

type Runner = (args: string[], extraEnv?: Record<string, string>) => Promise<Run>;
const run: Runner = inProcessRunner(() => ({ cwd: dir, env }));
const spawned: Runner = cliRunner(() => ({ cwd: dir, env }));

async function ok(args: string[], extraEnv: Record<string, string> = {}, runner = run): Promise<string> {
  const result = await runner(args, extraEnv);
  expect(result.stderr, `stderr of punchlist ${args.join(' ')}`).toBe('');
  expect(result.code, `exit status of punchlist ${args.join(' ')}`).toBe(0);
  return result.stdout;
}

/** Failure: the expected non-zero status and exactly one line `punchlist: <reason>` on stderr, nothing on stdout. */
async function fails(args: string[], code: number, extraEnv: Record<string, string> = {}, runner = run): Promise<string> {
  const result = await runner(args, extraEnv);
  expect(result.code, `exit status of punchlist ${args.join(' ')}`).toBe(code);
  expect(result.stderr).toMatch(/^punchlist: \S[^\n]*\n$/);
  expect(result.stdout).toBe('');
  return result.stderr;
}

const endpoint = (id: number) => ctx.db.kysely.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punchlist-webhooks-cli-'));
  env = cliEnv(dir);
  const file = join(dir, 'workspace.json');
  await writeFile(file, JSON.stringify(buildWorkspace().fixture));
  await ok(['import', file]);
  ctx = await createContext(loadConfig(env));
});

afterAll(async () => {
  await ctx?.close();
  await rm(dir, { recursive: true, force: true });
});

// The cases through bin/punchlist start a process (Node + tsx): seconds, more when the machine is busy.
describe('bin/punchlist webhooks', { timeout: 180_000 }, () => {
  it('has help for the group and each command, and is listed in the main help', async () => {
    const [main, group, create, list, disable] = await Promise.all([
      ok(['--help']),
      ok(['webhooks', '--help']),
      ok(['webhooks', 'create', '--help']),
      ok(['webhooks', 'list', '-h']),
      ok(['help', 'webhooks', 'disable']),
    ]);
    expect(main).toContain('webhooks create --user EMAIL --url URL [--events a,b] [--project ID] [--json]');
    expect(main).toContain('webhooks list --user EMAIL [--json]');
    expect(main).toContain('webhooks disable ID');
    for (const sub of ['webhooks create', 'webhooks list', 'webhooks disable']) expect(group).toContain(sub);
    for (const option of ['--user EMAIL', '--url URL', '--events a,b', '--project ID', '--json', 'WEBHOOK_ALLOW_PRIVATE=1']) {
      expect(create).toContain(option);
    }
    for (const type of EVENT_TYPES) expect(create).toContain(type);
    expect(list).toContain('{id, url, events, project_id, state, created_at}');
    expect(disable).toContain('disabled by an operator');
  });

  it('creates endpoints: the secret alone, or {id, secret} with --json', async () => {
    const secret = (
      await ok(['webhooks', 'create', '--user', 'manager@punchlist.test', '--url', 'http://127.0.0.1:9/all'], ALLOW, spawned)
    ).trimEnd();
    expect(secret).toMatch(SECRET);
    expect(secret).not.toContain('\n');

    const created = JSON.parse(
      await ok(
        [
          'webhooks',
          'create',
          '--user',
          'manager@punchlist.test',
          '--url',
          'http://127.0.0.1:9/some',
          '--events',
          'comment.created, answer.created,comment.created',
          '--project',
          '1',
          '--json',
        ],
        ALLOW,
      ),
    ) as { id: number; secret: string };
    expect(Object.keys(created).sort()).toEqual(['id', 'secret']);
    expect(created.secret).toMatch(SECRET);
    expect(created.secret).not.toBe(secret);
    const row = await endpoint(created.id);
    expect(row).toMatchObject({
      user_id: USERS.manager,
      url: 'http://127.0.0.1:9/some',
      project_id: 1,
      state: 'active',
      secret: created.secret,
    });
    expect(JSON.parse(row.event_types!)).toEqual(['comment.created', 'answer.created']);
    const first = await ctx.db.kysely
      .selectFrom('webhook_endpoints')
      .select(['id', 'secret', 'event_types', 'project_id'])
      .where('url', '=', 'http://127.0.0.1:9/all')
      .executeTakeFirstOrThrow();
    expect(first).toMatchObject({ secret, event_types: null, project_id: null });
  });

  it('lists a user’s endpoints as JSON (the six fields) and as a table, never a secret', async () => {
    const mine = JSON.parse(await ok(['webhooks', 'list', '--user', 'manager@punchlist.test', '--json'])) as Record<string, unknown>[];
    expect(mine.length).toBe(2);
    for (const w of mine) expect(Object.keys(w)).toEqual(['id', 'url', 'events', 'project_id', 'state', 'created_at']);
    expect(mine[0]).toMatchObject({ url: 'http://127.0.0.1:9/all', events: null, project_id: null, state: 'active' });
    expect(mine[1]).toMatchObject({
      url: 'http://127.0.0.1:9/some',
      events: ['comment.created', 'answer.created'],
      project_id: 1,
      state: 'active',
    });
    expect(Number.isNaN(Date.parse(String(mine[0]!.created_at)))).toBe(false);

    const [table, none, noneJson] = await Promise.all([
      ok(['webhooks', 'list', '--user', 'manager@punchlist.test']),
      ok(['webhooks', 'list', '--user', 'observer@punchlist.test']),
      ok(['webhooks', 'list', '--user', 'observer@punchlist.test', '--json']),
    ]);
    const lines = table.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATE\s+CREATED\s+PROJECT\s+EVENTS\s+URL$/);
    expect(lines[1]).toMatch(new RegExp(`^${String(mine[0]!.id)}\\s+active\\s+\\S+ \\S+\\s+all\\s+all\\s+http://127\\.0\\.0\\.1:9/all$`));
    expect(lines[2]).toContain('comment.created,answer.created');
    expect(table).not.toContain('whsec_');
    expect(none).toBe('no webhooks for observer@punchlist.test\n');
    expect(JSON.parse(noneJson)).toEqual([]);
  });

  it('disables any user’s endpoint as an operator, with that reason; again changes nothing', async () => {
    const [first] = JSON.parse(await ok(['webhooks', 'list', '--user', 'manager@punchlist.test', '--json'])) as { id: number }[];
    expect(await ok(['webhooks', 'disable', String(first!.id)])).toBe(`disabled webhook ${first!.id}\n`);
    expect(await endpoint(first!.id)).toMatchObject({ state: 'disabled', disabled_reason: 'disabled by an operator' });
    expect(await ok(['webhooks', 'disable', String(first!.id)])).toBe(`disabled webhook ${first!.id}\n`);

    const [json, table] = await Promise.all([
      ok(['webhooks', 'list', '--user', 'manager@punchlist.test', '--json']),
      ok(['webhooks', 'list', '--user', 'manager@punchlist.test']),
    ]);
    expect((JSON.parse(json) as { state: string }[]).map((w) => w.state)).toEqual(['disabled', 'active']);
    expect(table).toContain('disabled (disabled by an operator)');
  });

  it('fails with one line: unknown user, refused URL, unknown event type or project, unknown id, usage mistakes', async () => {
    const before = await ctx.db.kysely
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const create = (...args: string[]) => ['webhooks', 'create', '--user', 'manager@punchlist.test', ...args];
    const [
      unknownUser,
      loopback,
      scheme,
      unknownEvent,
      emptyEvents,
      hiddenProject,
      badProject,
      missingUrl,
      unknownId,
      badId,
      extra,
      noId,
      unknownOption,
    ] = await Promise.all([
      fails(['webhooks', 'create', '--user', 'nobody@punchlist.test', '--url', 'http://127.0.0.1:9/x'], 1, ALLOW),
      fails(create('--url', 'http://127.0.0.1:9/hook'), 1),
      fails(create('--url', 'ftp://127.0.0.1/hook'), 1, ALLOW),
      fails(create('--url', 'http://127.0.0.1:9/x', '--events', 'comment.created,item.deleted'), 2, ALLOW),
      fails(create('--url', 'http://127.0.0.1:9/x', '--events', ' , '), 2, ALLOW),
      fails(create('--url', 'http://127.0.0.1:9/x', '--project', '3'), 1, ALLOW),
      fails(create('--url', 'http://127.0.0.1:9/x', '--project', 'one'), 2, ALLOW),
      fails(['webhooks', 'create', '--user', 'manager@punchlist.test'], 2),
      fails(['webhooks', 'disable', '999999'], 1),
      fails(['webhooks', 'disable', 'abc'], 2, {}, spawned),
      fails(['webhooks', 'disable', '1', '2'], 2),
      fails(['webhooks', 'disable'], 2),
      fails(['webhooks', 'list', '--user', 'manager@punchlist.test', '--secrets'], 2),
    ]);
    expect(unknownUser).toContain('no user with the email "nobody@punchlist.test"');
    expect(loopback).toContain('--url http://127.0.0.1:9/hook');
    expect(loopback).toContain('resolves to 127.0.0.1, a loopback, private or link-local address');
    expect(loopback).toContain('WEBHOOK_ALLOW_PRIVATE=1');
    expect(scheme).toContain('must be an http or https URL');
    expect(unknownEvent).toContain('unknown event type "item.deleted"');
    expect(unknownEvent).toContain('comment.created');
    expect(emptyEvents).toContain('--events must name at least one event type');
    expect(hiddenProject).toContain('The project was not found');
    expect(badProject).toContain('--project must be a positive integer');
    expect(missingUrl).toContain('missing option --url');
    expect(unknownId).toContain('The webhook was not found');
    expect(badId).toContain('the webhook ID must be a positive integer');
    expect(extra).toContain('unexpected argument "2"');
    expect(noId).toContain('missing webhook ID');
    expect(unknownOption).toContain('unknown option --secrets');
    const after = await ctx.db.kysely
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});
