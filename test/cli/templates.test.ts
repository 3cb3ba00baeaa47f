import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliFile } from '../helpers/cli.js';

/** `bin/punchlist templates list|export|import` (docs/cli.md): a company keeps its templates in git. */
const { cli, ok, fails, json } = useCliFile({ context: true });

describe('bin/punchlist templates', () => {
  it('imports a documented JSON, lists it, exports the same document; refuses a broken one as a whole', async () => {
    const document = {
      name: 'Apartment handover',
      categories: ['Electrical'],
      fields: [{ name: 'Severity', kind: 'choice', options: ['low', 'high'], required: true }],
      sections: [
        {
          name: 'Kitchen',
          checklists: [{ name: 'Sink', items: [{ text: 'Tap drips', category: 'Electrical', fields: { Severity: 'high' } }] }],
        },
      ],
    };
    const file = join(cli.dir, 'template.json');
    await writeFile(file, JSON.stringify(document));
    expect(await ok(['templates', 'import', file])).toMatch(/^imported template \d+ from /);
    const list = await json<any[]>(['templates', 'list', '--json']);
    expect(list).toEqual([
      expect.objectContaining({ name: 'Apartment handover', sections: 1, checklists: [{ section: 'Kitchen', name: 'Sink', items: 1 }] }),
    ]);
    const exported = JSON.parse(await ok(['templates', 'export', String(list[0].id)]));
    expect(exported).toMatchObject({
      ...document,
      sections: [{ name: 'Kitchen', checklists: [{ name: 'Sink', items: [{ text: 'Tap drips', priority: 'medium' }] }] }],
    });
    // The same name again, an unknown key, a broken reference: refused, nothing stored.
    expect(await fails(['templates', 'import', file])).toMatch(/exists already/);
    await writeFile(file, JSON.stringify({ ...document, name: 'Other', colour: 'red' }));
    expect(await fails(['templates', 'import', file])).toMatch(/colour: is not a key of the template format/);
    await writeFile(file, JSON.stringify({ ...document, name: 'Other', categories: [] }));
    expect(await fails(['templates', 'import', file])).toMatch(
      /sections\[0\]\.checklists\[0\]\.items\[0\]\.category: "Electrical" is not one/,
    );
    expect(await json<any[]>(['templates', 'list', '--json'])).toHaveLength(1);
    expect(await fails(['templates', 'export', '999'])).toContain('no template with id 999');
  });
});
