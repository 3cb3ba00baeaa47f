// The entry of every worker thread of the pool (worker-pool.ts). The code is TypeScript and there is no build
// step: tsx is registered in this thread the way bin/punchlist registers it for the CLI (`node --import tsx`,
// as `npm start` runs, does not reach worker threads, and neither does Vitest's own loader). Then the worker
// module named by the pool gives its jobs, and job-runner.ts serves them.
import { fileURLToPath, URL } from 'node:url';
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

// The JavaScript dependencies first, before tsx's hooks (../../preload-dependencies.mjs says why).
await import('../../preload-dependencies.mjs');
register({ tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url)) });
const { runJobs } = await import('./job-runner.ts');
const { createJobs } = await import(workerData.entry);
runJobs(await createJobs(workerData.data));
