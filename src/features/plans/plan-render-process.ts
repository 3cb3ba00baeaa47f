import { ApiError } from '../../shared/errors.js';
import type { RenderMessage, RenderTask } from './plan-render-protocol.js';
import { inspectFile, refusal, renderFile } from './plan-render-tasks.js';

/**
 * The code of a plan's rendering process (plan-renderer.ts forks one per task, through render-process.mjs): runs
 * the task it is sent, telling each page done, then its result or its error, and ends. It ends as well when the
 * server goes (its channel closes).
 */

const post = (message: RenderMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));

process.once('disconnect', () => process.exit(1));
const task = await new Promise<RenderTask>((resolve) => process.once('message', (message) => resolve(message as RenderTask)));
try {
  const value =
    task.kind === 'inspect'
      ? await inspectFile(task)
      : await renderFile(task, (page, sheet) => void post({ type: 'progress', page, sheet }));
  await post({ type: 'result', value });
} catch (err) {
  const error = refusal(err);
  await post({
    type: 'error',
    error:
      error instanceof ApiError
        ? {
            message: error.details?.[0]?.message ?? error.message,
            status: error.status,
            code: error.code,
            field: error.details?.[0]?.field,
            reason: error.details?.[0]?.reason,
          }
        : { message: error instanceof Error ? error.message : String(error) },
  });
}
process.removeAllListeners('disconnect');
process.disconnect();
