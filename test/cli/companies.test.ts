import { describe, expect, it } from 'vitest';
import { useCliFile } from '../helpers/cli.js';

/** `punchlist companies list [--json]` (docs/design.md §20). */
const { cli, ok, json } = useCliFile({ context: true });

describe('companies list', () => {
  it('prints {id, name, trade, retired} of every company, retired ones too, as JSON or a table', async () => {
    expect(await ok(['companies', 'list'])).toBe('no companies\n');
    const sparks = await cli.ctx.companies.createCompany({ id: 0, role: 'admin' }, { name: 'Sparks Ltd', trade: 'Electrical' });
    const old = await cli.ctx.companies.createCompany({ id: 0, role: 'admin' }, { name: 'Old Crew', trade: '' });
    await cli.ctx.companies.setRetired({ id: 0, role: 'admin' }, old.id, true);
    expect(await json(['companies', 'list', '--json'])).toEqual([
      { id: old.id, name: 'Old Crew', trade: '', retired: true },
      { id: sparks.id, name: 'Sparks Ltd', trade: 'Electrical', retired: false },
    ]);
    const table = await ok(['companies', 'list']);
    expect(table).toMatch(/Sparks Ltd\s+Electrical\s+active/);
    expect(table).toMatch(/Old Crew\s+retired/);
  });
});
