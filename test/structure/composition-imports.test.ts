import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Issue 41: the composition roots (the server's and the CLI's context, a worker thread's) build each feature by its
 * module factory, so they import a feature's index.ts and nothing else of it (docs/architecture.md, "Modules and the
 * composition root"): static imports, re-exports and `import()` alike.
 */
const ROOTS = ['src/composition/context.ts', 'src/composition/offload-worker.ts'];
const repository = join(import.meta.dirname, '../..');

/** A path into a feature's folder that is not the folder's own index.js (a subfolder's index is an inside too). */
const FEATURE_INSIDE = /(^|\/)features\/[^/]+\/(?!index\.js$)/;

/** The imports of `source` past a feature's face, each as "<file>:<line> imports <specifier>". */
function featureInsidesImported(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const specifier = specifierOf(node);
    if (specifier !== null && FEATURE_INSIDE.test(specifier)) {
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      found.push(`${fileName}:${line} imports ${specifier}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function specifierOf(node: ts.Node): string | null {
  if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
    return node.moduleSpecifier.text;
  }
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    const [first] = node.arguments;
    return first && ts.isStringLiteralLike(first) ? first.text : null;
  }
  return null;
}

describe('the composition roots', () => {
  it.each(ROOTS)('%s imports each feature through its index.ts only', (root) => {
    expect(featureInsidesImported(root, readFileSync(join(repository, root), 'utf8'))).toEqual([]);
  });

  it('names each import past a face: a service file, a subfolder, a type, a re-export, a dynamic import', () => {
    const source = [
      "import { createItemsModule } from '../features/items/index.js';",
      "import { createProjectsService } from '../features/projects/projects.service.js';",
      "import type { CommentsService } from '../features/items/comments/index.js';",
      "export { readJobs } from '../features/offload/offloaded-reads.js';",
      "const later = () => import('../features/reports/report.service.js');",
      "import { openDatabase } from '../db/database.js';",
    ].join('\n');
    expect(featureInsidesImported('src/composition/context.ts', source)).toEqual([
      'src/composition/context.ts:2 imports ../features/projects/projects.service.js',
      'src/composition/context.ts:3 imports ../features/items/comments/index.js',
      'src/composition/context.ts:4 imports ../features/offload/offloaded-reads.js',
      'src/composition/context.ts:5 imports ../features/reports/report.service.js',
    ]);
  });
});
