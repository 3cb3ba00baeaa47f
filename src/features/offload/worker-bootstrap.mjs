// The entry of every worker thread of the pool (worker-pool.ts). The code is TypeScript and there is no build
// step: tsx is registered in this thread the way bin/punchlist registers it for the CLI (`node --import tsx`,
// as `npm start` runs, does not reach worker threads, and neither does Vitest's own loader). Then the worker
// module named by the pool gives its jobs, and job-runner.ts serves them.
import { fileURLToPath, URL } from 'node:url';
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

// The JavaScript dependencies of trees and searches first, before tsx's hooks (../../preload-dependencies.mjs says
// why); only those: the server's other dependencies (typebox, the MCP SDK, nodemailer…) are never used here, and
// a report's (PDFKit, sharp) load with the first report (offload-worker.ts).
await Promise.all(['kysely', 'better-sqlite3'].map((name) => import(name)));
register({ tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url)) });
const { runJobs } = await import('./job-runner.ts');
const { createJobs } = await import(workerData.entry);
runJobs(await createJobs(workerData.data));
