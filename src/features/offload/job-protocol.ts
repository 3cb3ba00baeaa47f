import type { MessagePort } from 'node:worker_threads';
import { ApiError, type FieldError } from '../../shared/errors.js';

/**
 * The messages between the pool (main thread, worker-pool.ts) and a worker (job-runner.ts). Every job has a
 * MessagePort of its own; the worker's parentPort carries only the start (`ready`), the jobs and `close`.
 */

/** Main → worker on parentPort: a job, the port its answers go to, and the file its stream is written to. */
export interface JobRequest {
  type: 'job';
  kind: string;
  input: unknown;
  port: MessagePort;
  spool: string;
}

/** Main → worker on parentPort: stop (the running jobs are cancelled), close the connections, exit. */
export interface CloseRequest {
  type: 'close';
}

/** Worker → main on parentPort, once its connections are open. */
export interface Ready {
  type: 'ready';
}

/**
 * Worker → main on the job's port: a result (the last message of a job without a stream), then for a stream
 * written… and end; or an error at any point.
 */
export type JobMessage =
  | { type: 'result'; value: unknown; streaming: boolean }
  | { type: 'written'; bytes: number }
  | { type: 'progress'; value: unknown }
  | { type: 'end' }
  | { type: 'error'; error: SerializedError };

/** Main → worker on the job's port: the reader went away (the client closed the connection). */
export interface CancelJob {
  type: 'cancel';
}

/** An error as it crosses threads: an ApiError keeps its status and code, any other its message and `code`. */
export interface SerializedError {
  message: string;
  code?: string;
  status?: number;
  details?: FieldError[];
  headers?: Record<string, string>;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof ApiError) {
    const { message, code, status, details, headers } = error;
    return { message, code, status, details, headers };
  }
  const code = (error as { code?: unknown } | null)?.code;
  return { message: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) };
}

/** The error again on the main thread: an ApiError answers as it would have inline; `code` lets a database outage be a 503. */
export function reviveError(error: SerializedError): Error {
  if (error.status !== undefined && error.code !== undefined) {
    return new ApiError(error.status, error.code, error.message, error.details, error.headers);
  }
  return Object.assign(new Error(error.message), error.code === undefined ? {} : { code: error.code });
}
