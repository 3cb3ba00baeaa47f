import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, cliRunner, inProcessRunner } from './helpers/cli.js';
import { loadConfig } from '../src/shared/config.js';
import { type AppContext, createContext } from '../src/composition/context.js';
import { buildWorkspace, USERS } from './helpers/workspace.js';

/**
 * `bin/punchlist notifications list` (docs/design.md §15) against a temp SQLite database. The commands run in the test
 * process (test/helpers/cli.ts); the JSON list and the unknown user go through the real binary, a child process.
 */
let dir: string;
let env: Record<string, string>;
let ctx: AppContext;
const run = inProcessRunner(() => ({ cwd: dir, env }));
const spawned = cliRunner(() => ({ cwd: dir, env }));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punchlist-notifications-cli-'));
  env = cliEnv(dir);
  const file = join(dir, 'workspace.json');
  await writeFile(file, JSON.stringify(buildWorkspace().fixture));
  expect((await run(['import', file])).code).toBe(0);
  ctx = await createContext(loadConfig(env));
  await ctx.notificationWorker.drainNow();
  await ctx.comments.addComment({ id: USERS.manager, role: 'member', name: 'Manager' }, 1001, { text: 'Check the paint' });
  await ctx.notificationWorker.drainNow();
});

afterAll(async () => {
  await ctx?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('bin/punchlist notifications list', { timeout: 180_000 }, () => {
  it('prints a user’s notifications as JSON, as a table, and refuses an unknown user', async () => {
    const json = await spawned(['notifications', 'list', '--user', 'executor@punchlist.test', '--json']);
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const [first, ...rest] = JSON.parse(json.stdout);
    expect(rest).toEqual([]);
    expect(first).toEqual({
      id: expect.any(Number),
      kind: 'comment_created',
      at: expect.any(String),
      item_id: 1001,
      project_id: 1,
      read_at: null,
      emailed_at: null,
      text: 'Manager commented on “Item 1001”: Check the paint',
    });
    const table = await run(['notifications', 'list', '--user', 'executor@punchlist.test']);
    expect(table.stdout).toMatch(/^ID\s+AT\s+KIND\s+ITEM\s+READ\s+EMAILED\s+TEXT\n/);
    expect(table.stdout).toContain('comment_created');
    expect((await run(['notifications', 'list', '--user', 'manager@punchlist.test'])).stdout).toBe(
      'no notifications for manager@punchlist.test\n',
    );
    const unknown = await spawned(['notifications', 'list', '--user', 'nobody@punchlist.test']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toBe('punchlist: no user with the email "nobody@punchlist.test"\n');
    const help = await run(['help']);
    expect(help.stdout).toContain('notifications list --user EMAIL [--json]');
  });
});
