import type { Kysely } from 'kysely';
import type { Database } from '../../../db/tables.js';
import type { BlobStore } from '../../../storage/index.js';
import { createAttachmentsRepository } from './attachments.repository.js';

/**
 * Blobs without an attachment row. An upload writes its blobs first and its rows afterwards, in one
 * transaction (attachments.service.ts); when the process dies in between, or the transaction fails and
 * the clean-up cannot run, the blobs stay behind, referenced by nothing. Nothing is lost for the client
 * (the upload was never acknowledged), but the bytes would pile up. The sweep deletes them.
 *
 * A blob younger than the grace period is spared: on storage shared by several processes it may
 * belong to an upload still in flight elsewhere, whose row is about to commit. Run before the server
 * listens, with no other process on the storage, the grace period can be 0 (config.ts,
 * ORPHAN_SWEEP_GRACE_SECONDS).
 */

/** The key prefixes attachments are stored under (attachments.service.ts). */
const ATTACHMENT_PREFIXES = ['items/', 'answers/'] as const;

const BATCH = 500;

/**
 * A crash leaves a few orphans (the files of the uploads in flight). Many orphans that are most of the
 * storage mean a database that does not belong to this storage (empty, restored from elsewhere, a
 * typo in DATABASE_URL): the sweep then deletes nothing and says so.
 */
export const SUSPICIOUS_ORPHANS = 100;

interface OrphanSweepResult {
  /** Blobs looked at. */
  scanned: number;
  /** Orphans deleted. */
  removed: number;
  /** Orphans younger than the grace period, kept for now. */
  spared: number;
  /** Leftovers of interrupted writes removed from the store's scratch space. */
  leftovers: number;
  /** True when the orphans looked like a database/storage mismatch and nothing was deleted. */
  refused: boolean;
}

export async function sweepOrphanBlobs(
  deps: { db: Kysely<Database>; blobs: BlobStore },
  options: { graceMs: number; now?: Date },
): Promise<OrphanSweepResult> {
  const { db, blobs } = deps;
  const cutoff = new Date((options.now ?? new Date()).getTime() - options.graceMs);
  const result: OrphanSweepResult = { scanned: 0, removed: 0, spared: 0, leftovers: 0, refused: false };
  const orphans: string[] = [];

  const attachments = createAttachmentsRepository(db);
  const referenced = (keys: string[]) => attachments.referencedPaths(keys);

  async function collect(keys: string[]) {
    result.scanned += keys.length;
    const known = await referenced(keys);
    orphans.push(...keys.filter((key) => !known.has(key)));
  }

  for (const prefix of ATTACHMENT_PREFIXES) {
    let batch: string[] = [];
    for await (const key of blobs.list(prefix)) {
      batch.push(key);
      if (batch.length >= BATCH) {
        await collect(batch);
        batch = [];
      }
    }
    if (batch.length) await collect(batch);
  }
  if (orphans.length > SUSPICIOUS_ORPHANS && orphans.length * 2 > result.scanned) {
    result.refused = true;
    return result;
  }
  for (const key of orphans) {
    if (options.graceMs > 0) {
      const modified = await blobs.modifiedAt(key);
      if (modified === null) continue;
      if (modified >= cutoff) {
        result.spared++;
        continue;
      }
    }
    // Asked again right before deleting: a row may have committed since the batch was read.
    if ((await referenced([key])).size > 0) continue;
    await blobs.delete(key);
    result.removed++;
  }

  // No grace period means everything, including what was written this very millisecond.
  result.leftovers = await blobs.clearLeftovers(options.graceMs > 0 ? cutoff : new Date(8.64e15));
  return result;
}
