// Import cycles in src/ (issue 32): every module that can reach itself through its imports, type-only imports
// included (a type import still ties two modules together for a reader). The same answer as
// `npx madge --circular --extensions ts src`, without the dependency and in a second rather than a minute.
// Prints each cycle as a path of files; exits 1 when there is one.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import process from 'node:process';

const root = resolve(process.argv[2] ?? 'src');

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

// `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`: relative specifiers only.
const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s(?:[^'"`;]*?\sfrom\s)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;

const files = sourceFiles(root);
const known = new Set(files);
const edges = new Map(
  files.map((file) => {
    const text = readFileSync(file, 'utf8');
    const targets = new Set();
    for (const match of text.matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), match[1] ?? match[2]).replace(/\.js$/, '.ts');
      if (known.has(target)) targets.add(target);
    }
    return [file, [...targets]];
  }),
);

/** Tarjan's strongly connected components; a component of two or more nodes (or a self-loop) holds a cycle. */
function cyclicComponents(nodes, edgesOf) {
  let index = 0;
  const order = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  function visit(node) {
    order.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of edgesOf(node)) {
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), order.get(next)));
    }
    if (low.get(node) !== order.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || edgesOf(node).includes(node)) components.push(component);
  }
  for (const node of nodes) if (!order.has(node)) visit(node);
  return components;
}

/** One cycle through the component, found by a breadth-first walk back to its first node. */
function cycleIn(component, edgesOf) {
  const inside = new Set(component);
  const start = [...component].sort()[0];
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const node = queue.shift();
    for (const next of edgesOf(node)) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (previous.get(path[0])) path.unshift(previous.get(path[0]));
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

const name = (file) => relative(root, file);
const fileEdges = (file) => edges.get(file);
const fileCycles = cyclicComponents(files, fileEdges);
for (const component of fileCycles) {
  const others = component.length > 2 ? ` (${component.length} modules tied together)` : '';
  process.stdout.write(`cycle${others}: ${cycleIn(component, fileEdges).map(name).join(' > ')}\n`);
}

// Folders (issue 41): a module is a feature folder (features/<name>, its subfolders included) or a top-level
// folder of src/ (api, web, db, …; src/'s own files are one more, '.'). Folders depend one way: no module may
// reach itself through the imports of its files. Tests are left out: they sit beside the code they test and
// may set up any part, and nothing imports them.
const moduleOf = (file) => {
  const parts = relative(root, file).split(sep).slice(0, -1);
  return parts[0] === 'features' ? parts.slice(0, 2).join('/') : (parts[0] ?? '.');
};
const folderEdges = new Map();
const example = new Map();
for (const file of files) {
  if (/\.test\.[mc]?ts$/.test(file)) continue;
  const from = moduleOf(file);
  if (!folderEdges.has(from)) folderEdges.set(from, []);
  for (const target of edges.get(file)) {
    const to = moduleOf(target);
    if (to === from || /\.test\.[mc]?ts$/.test(target)) continue;
    if (!folderEdges.get(from).includes(to)) folderEdges.get(from).push(to);
    if (!example.has(`${from}>${to}`)) example.set(`${from}>${to}`, `${name(file)} imports ${name(target)}`);
  }
}
const moduleEdges = (module) => folderEdges.get(module) ?? [];
const folderCycles = cyclicComponents([...folderEdges.keys()], moduleEdges);
for (const component of folderCycles) {
  const cycle = cycleIn(component, moduleEdges);
  process.stdout.write(`folder cycle (${component.length} modules tied together): ${cycle.join(' > ')}\n`);
  for (const [index, module] of cycle.slice(0, -1).entries()) {
    process.stdout.write(`  ${example.get(`${module}>${cycle[index + 1]}`)}\n`);
  }
}

const count = (n, what) => (n === 0 ? `no ${what}` : `${n} ${what}${n === 1 ? '' : 's'}`);
process.stdout.write(
  `${files.length} files in ${folderEdges.size} modules: ${count(fileCycles.length, 'import cycle')}, ${count(folderCycles.length, 'folder cycle')}\n`,
);
process.exit(fileCycles.length + folderCycles.length === 0 ? 0 : 1);
