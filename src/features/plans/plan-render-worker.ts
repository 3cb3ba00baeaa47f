import { parentPort, workerData } from 'node:worker_threads';
import { ApiError } from '../../errors.js';
import type { RenderMessage, RenderTask } from './plan-render-protocol.js';
import { inspectFile, refusal, renderFile } from './plan-render-tasks.js';

const post = (message: RenderMessage) => parentPort!.postMessage(message);

const task = (workerData as { task: RenderTask }).task;
try {
  const value =
    task.kind === 'inspect' ? await inspectFile(task) : await renderFile(task, (page, sheet) => post({ type: 'progress', page, sheet }));
  post({ type: 'result', value });
} catch (err) {
  const error = refusal(err);
  post({
    type: 'error',
    error:
      error instanceof ApiError
        ? {
            message: error.details?.[0]?.message ?? error.message,
            status: error.status,
            code: error.code,
            field: error.details?.[0]?.field,
          }
        : { message: error instanceof Error ? error.message : String(error) },
  });
}
