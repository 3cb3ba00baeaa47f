// The entry of a plan's rendering thread (plan-renderer.ts). Under tsx (the tests, the CLI) the code is TypeScript:
// tsx is registered in this thread as features/offload/worker-bootstrap.mjs does it (neither `node --import tsx`
// nor Vitest's loader reaches worker threads); run from dist/ (scripts/build.mjs) it is JavaScript already.
import { fileURLToPath, URL } from 'node:url';
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  (await import('tsx/esm/api')).register({ tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url)) });
}
await import(workerData.entry);
