import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliFile } from '../helpers/cli.js';

/**
 * The operator contract of docs/design.md §1 against a temp SQLite database: help, usage mistakes, migrate, users.
 * The commands run in the test process (test/helpers/cli.ts); help, a usage mistake and a relative
 * DATABASE_URL go through the real `bin/punchlist` run as a child process (from another working directory, by
 * absolute path).
 */
const { cli, run, ok, fails, json, spawned } = useCliFile();

// The cases through bin/punchlist start a process each (Node + tsx): seconds, more when the machine is busy.
describe('bin/punchlist', { timeout: 180_000 }, () => {
  it('prints help for the CLI and for each command; unknown commands and options fail with one line', async () => {
    const [help, createHelp, groupHelp] = await Promise.all([
      spawned.ok(['--help']),
      ok(['tokens', 'create', '--help']),
      ok(['tokens', '--help']),
    ]);
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
      spawned.fails(['frobnicate']),
      fails(['tokens', 'frobnicate']),
      fails(['migrate', '--frobnicate']),
    ]);
    expect(unknownCommand).toContain('unknown command "frobnicate"');
    expect(unknownSub).toContain('unknown command "tokens frobnicate"');
    expect(unknownOption).toContain('unknown option --frobnicate');
    // A usage mistake: status 2, also through the binary.
    expect((await spawned.run([])).code).toBe(2);
    expect((await run([])).code).toBe(2);
  });

  it('migrates, with relative paths taken from the working directory', async () => {
    expect(await ok(['migrate'])).toContain('001-initial');
    const relative = await spawned.run(['migrate'], { DATABASE_URL: 'sqlite:relative/db.sqlite' });
    expect(relative.code).toBe(0);
    expect(existsSync(join(cli.dir, 'relative', 'db.sqlite'))).toBe(true);
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
    // A name with a direction override or a control character (issue 46): refused, one line, nobody created.
    const [override, bell] = await Promise.all([
      fails(['users', 'create', '--email', 'eve@x.test', '--name', 'Eve \u202Egnp.exe']),
      fails(['users', 'create', '--email', 'fay@x.test', '--name', 'Fay\u0007']),
    ]);
    expect(override).toContain('name: must not contain control characters or text-direction overrides (found U+202E)');
    expect(bell).toContain('(found U+0007)');
    expect(await ok(['users', 'create', '--email', 'gil@x.test', '--name', 'גיל \u200F工事 ✅'])).toMatch(/gil@x\.test/);
    expect(duplicate).toContain('already exists'); // an ApiError of the service, as one line
    expect(missing).toContain('missing option --name');
    expect(badRole).toContain('--role');
  });
});
