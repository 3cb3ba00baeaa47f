import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/shared/config.js';
import { createContext } from '../../src/composition/context.js';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { cliEnv, cliRunner, inProcessRunner } from '../helpers/cli.js';
import { buildWorkspace } from '../helpers/workspace.js';
import { parseCsvReport, pdfText } from './pdf-text.js';

/**
 * `bin/punchlist report` (docs/design.md §17) on the standard workspace. The commands run in the test process
 * (test/helpers/cli.ts); the CSV on stdout and a hidden project go through the real binary, as an operator runs it.
 */
let dir: string;
let env: Record<string, string>;
const run = inProcessRunner(() => ({ cwd: dir, env }));
const spawned = cliRunner(() => ({ cwd: dir, env }));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'punchlist-report-cli-'));
  env = cliEnv(dir);
  const ctx = await createContext(loadConfig(env));
  await importFixture(ctx.db.kysely, ctx.db.dialect, buildWorkspace().fixture, ctx.clock);
  await ctx.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('punchlist report', () => {
  it('writes the whole project as CSV to stdout by default, nothing on stderr', async () => {
    const result = await spawned(['report', '--project', '1']);
    expect([result.code, result.stderr]).toEqual([0, '']);
    const { rows } = parseCsvReport(result.stdout);
    expect(rows.map((r) => r.item_id)).toEqual(['1000', '1001', '1010', '1011', '2000', '2001', '2010']);
    expect(rows[0]?.url).toMatch(/\/items\/1000$/);
    // Without --user: the whole project, projects nobody but the admin is in included.
    expect(parseCsvReport((await run(['report', '--project', '3'])).stdout).rows.map((r) => r.item_id)).toEqual(['4000']);
  });

  it('--user limits to what that user sees; --status filters; --output writes a PDF; --progress reports on stderr', async () => {
    const file = join(dir, 'partial.pdf');
    const result = await run([
      'report',
      '--project',
      '1',
      '--user',
      'partial@punchlist.test',
      '--status',
      'pending',
      '--format',
      'pdf',
      '--output',
      file,
      '--progress',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('punchlist: report 2/2 items\n');
    const text = await pdfText(readFileSync(file));
    expect(text).toContain('Plant audit');
    expect(text).toContain('Extinguishers checked');
    expect(text).toContain('Item 2010');
    expect(text).not.toContain('Item 2001');
    expect(text).toContain('by Partial');
  });

  it('a project the user cannot see is "not found" with a non-zero exit, and bad options are usage errors', async () => {
    const hidden = await spawned(['report', '--project', '3', '--user', 'manager@punchlist.test']);
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toBe('punchlist: project 3 not found (or not visible to manager@punchlist.test)\n');
    expect(hidden.stdout).toBe('');
    const missing = await run(['report', '--project', '99']);
    expect([missing.code, missing.stderr]).toEqual([1, 'punchlist: project 99 not found\n']);
    const format = await run(['report', '--project', '1', '--format', 'xlsx']);
    expect([format.code, format.stderr]).toEqual([2, 'punchlist: --format must be csv or pdf, got "xlsx"\n']);
    const status = await run(['report', '--project', '1', '--status', 'finished']);
    expect(status.code).toBe(2);
    const help = await run(['report', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: punchlist report --project ID/);
  }, 120_000);
});
