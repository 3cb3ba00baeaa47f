// npm test's static checks, run side by side: the typecheck, ESLint and Prettier (what npm run lint runs one
// after the other), the dependency audit, the import-cycle check of files and folders (scripts/import-cycles.mjs) and the count of
// long functions (scripts/long-functions.mjs). Each
// one's output is printed whole once it ends; the first failure fails the check. ESLint is the longest (~30 s quiet, tsc ~29 s); Prettier (~15 s) beside it
// rather than after it takes it off the critical path; its --cache (node_modules/.cache/prettier, keyed by the
// files' content, its options and its version) spares the files unchanged since the last run.
import { spawn } from 'node:child_process';
import process from 'node:process';

const run = ([name, command, ...args]) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => {
      process.stdout.write(`> ${name}: ${code === 0 ? 'ok' : `failed (${code})`}\n${output}`);
      resolve(code);
    });
  });

const checks = [
  ['typecheck', 'npm', 'run', '--silent', 'typecheck'],
  ['eslint', 'npx', '--no-install', 'eslint', '.'],
  ['prettier', 'npx', '--no-install', 'prettier', '--check', '--cache', '.'],
  ['audit:deps', 'npm', 'run', '--silent', 'audit:deps'],
  ['import cycles', 'node', 'scripts/import-cycles.mjs'],
  // Issue 41: a module is a file of small named functions; at most 10 functions over 80 lines outside tests and views.
  ['long functions', 'node', 'scripts/long-functions.mjs', '--max', '10'],
];
const codes = await Promise.all(checks.map(run));
process.exit(codes.some((c) => c !== 0) ? 1 : 0);
