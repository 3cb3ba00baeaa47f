/**
 * Audit records of requests that wrote nothing (reads, refusals, failures) are written in batches:
 * one transaction per batch instead of one INSERT per request. A batch leaves at the latest
 * `maxDelayMs` after its first record, or as soon as it holds `maxRecords`; `flush()` sends what is
 * pending at once (the audit readers and `close()` call it), so nothing is lost on a clean shutdown.
 * A crash loses at most the records of the last `maxDelayMs` (docs/performance.md).
 *
 * Successful writes never come here: they insert their record inside their own transaction
 * (docs/design.md §7, features/items/item-writer.ts).
 *
 * Records are written in the order they were queued: one flush at a time, each in queue order.
 */
interface AuditBatcher<T> {
  add(record: T): void;
  /** Writes everything queued so far; resolves once it is committed (or reported as failed). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is pending. Records added afterwards are written at once. */
  close(): Promise<void>;
  readonly pending: number;
}

export interface AuditBatcherOptions {
  maxDelayMs?: number;
  maxRecords?: number;
  /** Records kept for a retry while the database refuses them; beyond it the oldest are dropped. */
  maxPending?: number;
  onError?: (err: unknown, context: { retrying: number; dropped: number }) => void;
}

export function createAuditBatcher<T>(write: (records: T[]) => Promise<void>, options: AuditBatcherOptions = {}): AuditBatcher<T> {
  const maxDelayMs = options.maxDelayMs ?? 100;
  const maxRecords = options.maxRecords ?? 500;
  const maxPending = options.maxPending ?? 50_000;
  const onError =
    options.onError ??
    ((err, context) => {
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(
        `${JSON.stringify({ level: 50, time: Date.now(), msg: 'audit records could not be written', err: message, ...context })}\n`,
      );
    });
  let queue: T[] = [];
  let timer: NodeJS.Timeout | null = null;
  // The flush in progress: the next one starts after it, so batches commit in queue order.
  let running: Promise<void> = Promise.resolve();
  let closed = false;

  const writeQueued = async () => {
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    try {
      await write(batch);
    } catch (err) {
      // Back at the front, in order, for the next flush; bounded so a dead database cannot exhaust memory.
      queue = batch.concat(queue);
      const dropped = Math.max(0, queue.length - maxPending);
      if (dropped) queue = queue.slice(dropped);
      onError(err, { retrying: queue.length, dropped });
      if (!closed) schedule();
    }
  };

  const flush = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    running = running.then(writeQueued);
    return running;
  };

  function schedule() {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = null;
      void flush();
    }, maxDelayMs);
    // A pending batch does not keep a process alive on its own; close() is what a clean exit calls.
    timer.unref();
  }

  return {
    add(record) {
      queue.push(record);
      if (closed || queue.length >= maxRecords) void flush();
      else schedule();
    },
    flush,
    async close() {
      closed = true;
      await flush();
    },
    get pending() {
      return queue.length;
    },
  };
}
