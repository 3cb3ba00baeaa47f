import ts from 'typescript';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
function files(d) {
  return readdirSync(d, { withFileTypes: true }).flatMap((e) => {
    const p = join(d, e.name);
    if (e.isDirectory()) return p.includes('/views') ? [] : files(p);
    return /\.(ts|mts)$/.test(e.name) && !e.name.includes('.test.') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}
const out = [];
for (const f of files('src')) {
  const sf = ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (n) => {
    if (ts.isFunctionLike(n) && n.body) {
      const a = sf.getLineAndCharacterOfPosition(n.getStart()).line,
        b = sf.getLineAndCharacterOfPosition(n.end).line;
      const len = b - a + 1;
      if (len > 80) {
        let name =
          n.name?.getText() ??
          (ts.isVariableDeclaration(n.parent)
            ? n.parent.name.getText()
            : ts.isPropertyAssignment(n.parent)
              ? n.parent.name.getText()
              : '<anon>');
        out.push([len, relative('.', f) + ':' + (a + 1), name]);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
out.sort((x, y) => y[0] - x[0]);
for (const o of out) console.log(o.join('\t'));
console.log('total', out.length);
