import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { threadId } from 'node:worker_threads';
import { ApiError } from '../../src/shared/errors.js';
import type { Jobs } from '../../src/features/offload/job-runner.js';
import type { WorkerConfig } from '../../src/shared/config.js';
import { createJobs as createAppJobs } from '../../src/composition/offload-worker.js';

/** A worker module for tests of the pool (features/offload): the app's jobs (reports), and jobs that tests steer. */
export const OFFLOAD_TEST_WORKER = new URL(import.meta.url);

async function* chunks(count: number, pauseMs: number) {
  for (let i = 0; i < count; i++) {
    if (i > 0) await sleep(pauseMs);
    yield Buffer.from(`chunk ${i};`);
  }
}

export async function createJobs(config: WorkerConfig): Promise<Jobs> {
  const app = await createAppJobs(config);
  return {
    handlers: {
      ...app.handlers,
      /** Which thread ran the job. */
      thread: async () => ({ value: threadId }),
      echo: async (input: unknown) => ({ value: input }),
      /** `count` chunks, `pauseMs` apart: the first reaches the reader long before the last is made. */
      chunks: async ({ count, pauseMs }: { count: number; pauseMs: number }) => ({
        value: count,
        stream: Readable.from(chunks(count, pauseMs)),
      }),
      /** A stream that gives nothing and never ends: the worker stays busy until the reader goes away. */
      hold: async () => ({ value: 'held', stream: new Readable({ read() {} }) }),
      fail: async () => {
        throw new ApiError(409, 'conflict', 'refused by the job');
      },
      /** An exception nobody catches: the thread dies while the job runs. */
      crash: async () => {
        setImmediate(() => {
          throw new Error('boom');
        });
        return new Promise(() => {});
      },
      /** Dies after the first bytes of its stream. */
      crashMidStream: async () => {
        setTimeout(() => process.exit(3), 300);
        return { value: 'dying', stream: Readable.from(chunks(100, 100)) };
      },
    },
    close: app.close,
  };
}
