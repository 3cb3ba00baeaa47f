// The entry of every worker thread of the pool (worker-pool.ts). Under tsx (the tests, the CLI) the code is
// TypeScript: tsx is registered in this thread the way bin/punchlist registers it for the CLI (`node --import tsx`
// does not reach worker threads, and neither does Vitest's own loader). Run from dist/ (`npm start`,
// scripts/build.mjs) it is JavaScript, and no tsx is loaded. Then the worker module named by the pool gives its
// jobs, and job-runner serves them.
import { fileURLToPath, URL } from 'node:url';
import { workerData } from 'node:worker_threads';

// The JavaScript dependencies of trees and searches first, before tsx's hooks (../../preload-dependencies.mjs says
// why); only those: the server's other dependencies (typebox, the MCP SDK, nodemailer…) are never used here, and
// a report's (PDFKit, sharp) load with the first report (offload-worker.ts).
await Promise.all(['kysely', 'better-sqlite3'].map((name) => import(name)));
// Run from dist/ (scripts/build.mjs), the modules are JavaScript already.
const typescript = workerData.entry.endsWith('.ts');
if (typescript) (await import('tsx/esm/api')).register({ tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url)) });
const { runJobs } = await import(typescript ? './job-runner.ts' : './job-runner.js');
const { createJobs } = await import(workerData.entry);
runJobs(await createJobs(workerData.data));
