// npm test's static checks, run side by side: the typecheck, then ESLint and Prettier (npm run lint), and
// the dependency audit. Each one's output is printed whole once it ends; the first failure fails the check.
import { spawn } from 'node:child_process';
import process from 'node:process';

const run = (script) =>
  new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => {
      process.stdout.write(`> ${script}: ${code === 0 ? 'ok' : `failed (${code})`}\n${output}`);
      resolve(code);
    });
  });

const codes = await Promise.all(['typecheck', 'lint', 'audit:deps'].map(run));
process.exit(codes.some((c) => c !== 0) ? 1 : 0);
