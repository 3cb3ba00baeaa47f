import type { SearchRepository } from './search.repository.js';

/** Documents per FTS5 transaction: a batch holds the one connection for a few milliseconds at most. */
const BATCH_DOCS = 200;
const IDLE_MS = 100;

export interface SearchIndexer {
  /** Starts feeding FTS5 from the queue in the background (SQLite; nothing to do on PostgreSQL). */
  start(): void;
  /** Indexes everything queued now, e.g. after an import. Answers how many documents were indexed. */
  drain(onProgress?: (indexed: number) => void): Promise<number>;
  /** Stops the background loop, after the batch in flight. */
  stop(): Promise<void>;
}

/**
 * The search indexer (docs/design.md §10, migration 010): on SQLite, writes queue the documents they change and
 * this feeds them to FTS5 in batches, outside the writes' transactions. SQLite has one node, so one loop
 * per process is one per database. Search stays exact meanwhile: it also reads the queued documents.
 */
export function createSearchIndexer(
  repo: SearchRepository,
  dialect: 'sqlite' | 'postgres',
  onError: (error: unknown) => void,
): SearchIndexer {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = true;

  async function drain(onProgress?: (indexed: number) => void, background = false): Promise<number> {
    if (dialect !== 'sqlite') return 0;
    let total = 0;
    for (;;) {
      const indexed = background && stopped ? 0 : await repo.indexQueued(BATCH_DOCS);
      if (indexed === 0) return total;
      total += indexed;
      onProgress?.(total);
      // Between batches the requests waiting for the connection go first.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => {
      running = drain(undefined, true).catch(onError).finally(schedule);
    }, IDLE_MS);
    timer.unref();
  }

  return {
    start() {
      if (dialect !== 'sqlite' || !stopped) return;
      stopped = false;
      schedule();
    },
    drain: (onProgress) => drain(onProgress),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
