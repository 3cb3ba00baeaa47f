// The entry of a plan's rendering process (plan-renderer.ts forks it: `render-process.mjs <entry> <nice>`, the
// task then comes as its first message). First, every thread the process has yet (V8's own) gets the low priority
// asked, and the threads started later (libuv's pool, libvips') inherit it from the main thread: on Linux a
// priority belongs to a thread, not to the process. Then, under tsx (the tests, the CLI) the code is TypeScript
// and tsx is registered here as features/offload/worker-bootstrap.mjs does it; run from dist/ (scripts/build.mjs)
// it is JavaScript already.
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const [entry, nice] = process.argv.slice(2);
let threads = [0];
try {
  threads = readdirSync('/proc/self/task').map(Number);
} catch {
  // Not Linux: the process's priority, which its threads share there.
}
for (const thread of threads) {
  try {
    setPriority(thread, Number(nice));
  } catch {
    // A thread that has ended meanwhile; or a system that refuses: the rendering runs at the normal priority.
  }
}
if (entry.endsWith('.ts')) {
  (await import('tsx/esm/api')).register({ tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url)) });
}
await import(entry);
