import type { JobRunner } from '../../jobs/job-runner.js';
import type { SearchRepository } from './search.repository.js';

/** Documents per FTS5 transaction: a batch holds the one connection for a few milliseconds at most. */
const BATCH_DOCS = 200;
const IDLE_MS = 100;

export interface SearchIndexer {
  /** Starts feeding FTS5 from the queue in the background (SQLite; nothing to do on PostgreSQL). */
  start(): void;
  /** Indexes everything queued now, e.g. after an import. Answers how many documents were indexed. */
  drain(onProgress?: (indexed: number) => void): Promise<number>;
  /** Stops the background job, after the batch in flight. */
  stop(): Promise<void>;
}

/**
 * Feeds FTS5 everything queued (SQLite; PostgreSQL indexes in the writes themselves), batch after batch, until the
 * queue is empty or `stopping()`. Answers how many documents were indexed.
 */
export async function indexQueued(
  repo: SearchRepository,
  dialect: 'sqlite' | 'postgres',
  options: { onProgress?: (indexed: number) => void; stopping?: () => boolean } = {},
): Promise<number> {
  if (dialect !== 'sqlite') return 0;
  let total = 0;
  for (;;) {
    const indexed = options.stopping?.() ? 0 : await repo.indexQueued(BATCH_DOCS);
    if (indexed === 0) return total;
    total += indexed;
    options.onProgress?.(total);
    // Between batches the requests waiting for the connection go first.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * The search indexer (docs/design.md §10, migration 010): on SQLite, writes queue the documents they change and
 * this job feeds them to FTS5 in batches, outside the writes' transactions. SQLite has one node, so one job
 * per process is one per database. Search stays exact meanwhile: it also reads the queued documents.
 */
export function createSearchIndexer(repo: SearchRepository, dialect: 'sqlite' | 'postgres', jobs: Pick<JobRunner, 'job'>): SearchIndexer {
  const job = jobs.job({
    name: 'search-indexer',
    run: async (run) => void (await indexQueued(repo, dialect, { stopping: run.stopping })),
    everyMs: IDLE_MS,
    enabled: dialect === 'sqlite',
  });
  return {
    start() {
      if (dialect === 'sqlite') job.start();
    },
    drain: (onProgress) => indexQueued(repo, dialect, onProgress ? { onProgress } : {}),
    stop: job.stop,
  };
}
