// The server as plain JavaScript for `npm start` and production: every module of src/ (tests excepted) transformed
// by esbuild on its own, one .js file per .ts file in the same place under dist/src/, and every other file of src/
// (the web's static files, the demo's photos, the .mjs preloads) copied beside them. Run under plain `node`, the
// server and its worker threads skip tsx's loader-hooks threads and esbuild's transforms at every start: ~60 MB
// less RSS (docs/performance.md, "The server run as JavaScript"). Imports already name their .js files; the
// worker thread's entry follows the extension of the module that names it (src/composition/context.ts). Tests, the CLI and the
// benchmarks' own scripts run the TypeScript through tsx, as before.
//
//   node scripts/build.mjs            (about a second; `npm start` runs it first)
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
// Written beside, then swapped in: a server still running from dist/ finds every file it loads late (a report's).
const out = `${dist}.new-${process.pid}`;

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

const started = Date.now();
// The compiler options tsx applies (class fields, imports kept as written), so that dist/ behaves as the tests' src/.
const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
const jobs = [];
for (const file of files(join(root, 'src'))) {
  if (file.endsWith('.test.ts')) continue;
  const target = join(out, relative(root, file));
  mkdirSync(dirname(target), { recursive: true });
  if (!file.endsWith('.ts')) {
    copyFileSync(file, target);
    continue;
  }
  jobs.push(
    transform(readFileSync(file, 'utf8'), {
      loader: 'ts',
      format: 'esm',
      target: 'node20',
      sourcefile: file,
      tsconfigRaw: { compilerOptions },
    }).then(({ code }) => writeFileSync(target.replace(/\.ts$/, '.js'), code)),
  );
}
await Promise.all(jobs);
// What src/ reads of package.json (`../../package.json`: the version) and the module type of dist/'s .js files.
const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
writeFileSync(join(out, 'package.json'), `${JSON.stringify({ name, version, private: true, type: 'module' }, null, 2)}\n`);
const old = `${dist}.old-${process.pid}`;
rmSync(old, { recursive: true, force: true });
try {
  renameSync(dist, old);
} catch (err) {
  if (err.code !== 'ENOENT') throw err;
}
try {
  renameSync(out, dist);
} catch (err) {
  // Another build (a second `npm start` at the same moment) swapped its own in first: the same files.
  if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
  rmSync(out, { recursive: true, force: true });
}
rmSync(old, { recursive: true, force: true });
process.stdout.write(`built dist/ (${jobs.length} modules) in ${Date.now() - started} ms\n`);
