import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// scripts/import-cycles.mjs (npm test's check, issue 41): no file and no folder may reach itself through imports.
const check = (root: string) =>
  spawnSync(process.execPath, ['scripts/import-cycles.mjs', root], { encoding: 'utf8', cwd: join(import.meta.dirname, '../..') });

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'punchlist-cycles-'));
  dir = root;
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the import-cycle check', () => {
  it('passes on src/ as it is', () => {
    const result = check('src');
    expect(result.stdout).toMatch(/no import cycle, no folder cycle/);
    expect(result.status).toBe(0);
  });

  it('fails on two feature folders that import each other without any file cycle, naming the imports', () => {
    const root = tree({
      'features/items/writer.ts': "import { companyName } from '../companies/names.js';\nexport const write = () => companyName;\n",
      'features/companies/names.ts': 'export const companyName = "Voltline";\n',
      'features/companies/packs.ts': "import { write } from '../items/writer.js';\nexport const pack = write;\n",
    });
    const result = check(root);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('no import cycle, 1 folder cycle');
    expect(result.stdout).toContain('features/companies/packs.ts imports features/items/writer.ts');
    expect(result.stdout).toContain('features/items/writer.ts imports features/companies/names.ts');
  });

  it('counts a feature subfolder as part of its feature, and leaves tests out', () => {
    const root = tree({
      'features/items/index.ts': "export { comment } from './comments/comment.js';\nexport const item = 1;\n",
      'features/items/comments/comment.ts': "import { writer } from '../writer.js';\nexport const comment = writer;\n",
      'features/items/writer.ts': 'export const writer = 2;\n',
      'features/plans/plans.ts': 'export const plan = 3;\n',
      'features/plans/plans.test.ts': "import { item } from '../items/index.js';\nexport const seen = item;\n",
      'features/items/pins.ts': "import { plan } from '../plans/plans.js';\nexport const pin = plan;\n",
    });
    const result = check(root);
    expect(result.stdout).toContain('no import cycle, no folder cycle');
    expect(result.status).toBe(0);
  });

  it('fails on a file-level cycle inside one folder', () => {
    const root = tree({
      'web/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'web/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    });
    const result = check(root);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/cycle: web\/a\.ts > web\/b\.ts > web\/a\.ts/);
  });
});
