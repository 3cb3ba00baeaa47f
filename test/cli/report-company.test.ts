import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/shared/config.js';
import { createContext } from '../../src/composition/context.js';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { cliEnv, inProcessRunner } from '../helpers/cli.js';
import { buildWorkspace } from '../helpers/workspace.js';
import { parseCsvReport, pdfText } from '../reports/pdf-text.js';

/** `punchlist report --project ID --company ID` (docs/design.md §20): the company's pack, its open items only, to a file. */
let dir: string;
let env: Record<string, string>;
let sparks = 0;
const run = inProcessRunner(() => ({ cwd: dir, env }));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'punchlist-report-company-'));
  env = cliEnv(dir);
  const ctx = await createContext(loadConfig(env));
  await importFixture(ctx.db.kysely, ctx.db.dialect, buildWorkspace().fixture, ctx.clock);
  const admin = { id: 1, role: 'admin' as const };
  sparks = (await ctx.companies.createCompany(admin, { name: 'Sparks Ltd', trade: 'Electrical' })).id;
  const dry = (await ctx.companies.createCompany(admin, { name: 'Drywall Co', trade: '' })).id;
  for (const [item, company] of [
    [1000, sparks],
    [1011, sparks],
    [2000, sparks],
    [2001, dry],
  ] as const) {
    await ctx.itemWrites.setCompany(admin, item, company);
  }
  await ctx.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('punchlist report --company', () => {
  it('writes the company’s pack as a PDF: its open items only', async () => {
    const file = join(dir, 'sparks.pdf');
    const result = await run(['report', '--project', '1', '--company', String(sparks), '--format', 'pdf', '--output', file]);
    expect([result.code, result.stderr]).toEqual([0, '']);
    const text = await pdfText(readFileSync(file));
    expect(text).toContain('Items in this report: 2');
    expect(text).toContain('#1000 Extinguishers checked');
    expect(text).toContain('#1011 Item 1011');
    for (const other of ['#2000', '#2001', '#1001', '#1010', '#2010']) expect(text).not.toContain(other);
  });

  it('as CSV, with --status narrowing it; an unknown company is an error', async () => {
    const csv = await run(['report', '--project', '1', '--company', String(sparks), '--status', 'blocked']);
    expect(csv.code).toBe(0);
    expect(parseCsvReport(csv.stdout).rows.map((r) => [r.item_id, r.company])).toEqual([['1011', 'Sparks Ltd']]);
    const unknown = await run(['report', '--project', '1', '--company', '999']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('company 999 not found');
    expect((await run(['report', '--project', '1', '--company', 'x'])).code).not.toBe(0);
  });
});
