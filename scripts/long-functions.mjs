// Functions over 80 lines in src/ outside tests and views (issue 41: a module is a file of small named functions,
// not one closure holding the module; STYLE.md 17). Counted on the TypeScript syntax tree: every function,
// method, arrow function and accessor with a body, from its first line to its last.
// `node scripts/long-functions.mjs` lists them, longest first; `--max N` exits 1 when there are more than N.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import process from 'node:process';
import ts from 'typescript';

const LIMIT = 80;
const maxIndex = process.argv.indexOf('--max');
const max = maxIndex === -1 ? Infinity : Number(process.argv[maxIndex + 1]);

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'views' ? [] : sourceFiles(path);
    return /\.m?ts$/.test(entry.name) && !/\.test\.m?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  return '(anonymous)';
}

const long = [];
for (const file of sourceFiles('src')) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      if (lines > LIMIT) long.push({ lines, where: `${relative('.', file)}:${first + 1}`, name: nameOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

long.sort((a, b) => b.lines - a.lines);
for (const { lines, where, name } of long) process.stdout.write(`${String(lines).padStart(5)}  ${where}  ${name}\n`);
process.stdout.write(`${long.length} functions over ${LIMIT} lines (tests and views left out)\n`);
process.exit(long.length > max ? 1 : 0);
