import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * One parse per form (issue 41 item 5, docs/decisions.md): a web page reads a form's fields only in its parse
 * function, named `…Of` (`statusOf(form)`, `bulkChangeOf(form)`), which gives them to `parseFields` with the form's
 * schema; a handler calls that function and a service, and reads no field itself. Checked on the TypeScript syntax
 * tree of every file under src/web/pages.
 *
 * A field read is a call of `get`, `getAll`, `has`, `keys`, `values`, `entries` or `forEach` on a form, or of one of
 * web/form.ts's readers that take the form. A form is `formOf(request)` itself, a name bound to it, to
 * `new URLSearchParams(…)` or declared `URLSearchParams`, and the names the pages give forms (`form`, `body`,
 * `fields`). The function a read is in is the nearest named one around it (a declaration, or a function given to a
 * variable or property): an anonymous callback inside a parse function belongs to it.
 */
const PAGES = 'src/web/pages';
const FORM_METHODS = new Set(['get', 'getAll', 'has', 'keys', 'values', 'entries', 'forEach']);
const FORM_READERS = new Set(['textField', 'sentField', 'idsOf', 'companyOf', 'vocabularyOf']);
const FORM_NAMES = ['form', 'body', 'fields'];

const isFormSource = (node: ts.Expression | undefined): boolean =>
  node !== undefined &&
  ((ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'formOf') ||
    (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URLSearchParams'));

/** The names bound to a form in this file (besides the usual ones). */
function formNames(source: ts.SourceFile): Set<string> {
  const names = new Set(FORM_NAMES);
  const visit = (node: ts.Node) => {
    if (ts.isParameter(node) && ts.isIdentifier(node.name) && node.type?.getText(source) === 'URLSearchParams') names.add(node.name.text);
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && isFormSource(node.initializer)) names.add(node.name.text);
    if (
      ts.isVariableDeclaration(node) &&
      ts.isArrayBindingPattern(node.name) &&
      node.initializer &&
      ts.isArrayLiteralExpression(node.initializer)
    ) {
      const values = node.initializer.elements;
      node.name.elements.forEach((element, i) => {
        if (ts.isBindingElement(element) && ts.isIdentifier(element.name) && isFormSource(values[i])) names.add(element.name.text);
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** The name of the nearest named function around `node`, or null at the top level. */
function enclosingFunctionName(node: ts.Node): string | null {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if ((ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at)) && at.name) return at.name.getText();
    if (ts.isArrowFunction(at) || ts.isFunctionExpression(at)) {
      const holder: ts.Node = at.parent;
      if ((ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder)) && holder.initializer === at) return holder.name.getText();
    }
  }
  return null;
}

/** Each field read of a page's source outside a `…Of` function: `file:line` and the read. */
export function readsOutsideParse(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const forms = formNames(source);
  const isForm = (node: ts.Expression) => (ts.isIdentifier(node) && forms.has(node.text)) || isFormSource(node);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const read =
        (ts.isPropertyAccessExpression(callee) && FORM_METHODS.has(callee.name.text) && isForm(callee.expression)) ||
        (ts.isIdentifier(callee) && FORM_READERS.has(callee.text));
      if (read && !enclosingFunctionName(node)?.endsWith('Of')) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(`${fileName}:${line} ${node.getText(source)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function pageFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return pageFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('web pages read form fields only in their parse functions', () => {
  it('finds no field read outside a `…Of` function in src/web/pages', () => {
    const files = pageFiles(PAGES);
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((file) => readsOutsideParse(relative('.', file), readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('names a read in a handler, in a named helper and through a reader, and accepts the same in a parse function', () => {
    const page = `
      const nameOf = (form: URLSearchParams) => parseFields(NameForm, { name: textField(form, 'name') });
      function bulkOf(form: URLSearchParams) { return form.getAll('items').map((id) => form.get(id)); }
      const helper = (params: URLSearchParams) => params.get('x');
      app.post('/x', async (request) => {
        const [id, posted] = [idParam(request), formOf(request)];
        const direct = formOf(request).get('direction');
        return write(posted.has('enabled'), textField(posted, 'name'), nameOf(posted), direct, id);
      });`;
    expect(readsOutsideParse('page.ts', page)).toEqual([
      "page.ts:4 params.get('x')",
      "page.ts:7 formOf(request).get('direction')",
      "page.ts:8 posted.has('enabled')",
      "page.ts:8 textField(posted, 'name')",
    ]);
  });
});
