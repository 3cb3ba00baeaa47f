import { beforeAll, describe, expect, it, vi } from 'vitest';
import { useCliFile } from '../helpers/cli.js';
import { makeProject, makeUser } from '../helpers/factories.js';

/**
 * `bin/punchlist tokens create|list|revoke` (docs/design.md §1, §4, §18) against a temp SQLite database: an
 * administrator Ann, a member Bob of nothing, and one project. The commands run in the test process
 * (test/helpers/cli.ts); the first token and a malformed id go through the real binary, a child process.
 */
const TOKEN = /^plk_[0-9A-Za-z]{36}$/;
const DAY = 86_400_000;

const { cli, ok, fails, json, counts, spawned } = useCliFile({ context: true });
let project: number;
beforeAll(async () => {
  const ann = await makeUser(cli, { email: 'ann@x.test', name: 'Ann', role: 'admin' });
  await makeUser(cli, { email: 'bob@x.test', name: 'Bob' });
  project = (await makeProject({ ctx: cli.ctx, admin: ann })).id;
});

// The cases through bin/punchlist start a process (Node + tsx): seconds, more when the machine is busy.
describe('bin/punchlist tokens', { timeout: 180_000 }, () => {
  const raws: string[] = [];

  it('creates tokens: raw token alone on stdout, --json shape, expiry options, refusals', async () => {
    const before = Date.now();
    const raw = await spawned.ok(['tokens', 'create', '--user', 'ann@x.test', '--name', 'crm', '--scopes', 'auth:me,items:read']);
    expect(raw).toMatch(/^plk_[0-9A-Za-z]{36}\n$/);
    raws.push(raw.trim());
    expect((await cli.ctx.tokens.authenticate(raw.trim(), '127.0.0.1')).user.email).toBe('ann@x.test');

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
    const crmId = (await cli.ctx.tokens.listTokens((await cli.ctx.users.findByEmail('ann@x.test'))!.id)).find((t) => t.name === 'crm')!.id;
    expect(await ok(['tokens', 'revoke', String(crmId)])).toContain(String(crmId));
    // The test's context is another node with its own token cache: it may serve the state it read for up to 1 s
    // (docs/design.md §4), so the refusal is awaited rather than expected at once (10 s: room for a busy machine).
    await vi.waitFor(() => expect(cli.ctx.tokens.authenticate(raws[0]!, '127.0.0.1')).rejects.toMatchObject({ code: 'token_revoked' }), {
      timeout: 10_000,
      interval: 100,
    });

    const [listed, table, unknown, badId] = await Promise.all([
      json<any[]>(['tokens', 'list', '--user', 'ann@x.test', '--json']),
      ok(['tokens', 'list', '--user', 'ann@x.test']),
      fails(['tokens', 'revoke', '999999']),
      spawned.fails(['tokens', 'revoke', 'abc']),
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
      `${project},${project}`,
      '--json',
    ]);
    expect(limited.project_ids).toEqual([project]);
    expect((await cli.ctx.tokens.authenticate(limited.token, '127.0.0.1')).user.projectIds).toEqual([project]);
    const listed = await json<any[]>(['tokens', 'list', '--user', 'ann@x.test', '--json']);
    expect(listed.find((t) => t.id === limited.id).project_ids).toEqual([project]);
    expect(listed.filter((t) => t.id !== limited.id).map((t) => t.project_ids)).toEqual(listed.slice(1).map(() => null));
    expect(await ok(['tokens', 'list', '--user', 'ann@x.test'])).toMatch(new RegExp(`PROJECTS[\\s\\S]*one project.*\\b${project}\\n`));

    const before = (await counts()).tokens;
    const [unseen, unknown, malformed, empty] = await Promise.all([
      // bob is a member of nothing: the project does not exist for him.
      fails(['tokens', 'create', '--user', 'bob@x.test', '--name', 'x', '--scopes', 'auth:me', '--projects', String(project)]),
      fails(['tokens', 'create', '--user', 'ann@x.test', '--name', 'x', '--scopes', 'auth:me', '--projects', `${project},999`]),
      fails(['tokens', 'create', '--user', 'ann@x.test', '--name', 'x', '--scopes', 'auth:me', '--projects', '1,abc']),
      fails(['tokens', 'create', '--user', 'ann@x.test', '--name', 'x', '--scopes', 'auth:me', '--projects', ',']),
    ]);
    expect(unseen).toContain(`project ${project}`);
    expect(unknown).toContain('project 999');
    expect(malformed).toContain('abc');
    expect(empty).toContain('--projects');
    expect((await counts()).tokens).toBe(before);
  });
});
