import { resolve } from 'node:path';
import type { BlobStore } from './blob-store.js';
import { DiskBlobStore } from './disk-blob-store.js';

export { assertValidKey, isValidKey, type BlobStore } from './blob-store.js';
export { DiskBlobStore } from './disk-blob-store.js';

/** `file:PATH` (relative to the working directory) or `s3://bucket/prefix`, as STORAGE_URL spells it. */
export function openBlobStore(url: string): BlobStore {
  if (url.startsWith('file:')) {
    const path = url.slice('file:'.length);
    if (path === '') throw new Error('STORAGE_URL=file: needs a directory, e.g. file:./data/storage');
    return new DiskBlobStore(resolve(process.cwd(), path));
  }
  if (url.startsWith('s3://')) {
    // The URL itself is not echoed: an S3 URL may carry credentials.
    throw new Error('S3 storage is not available yet (STORAGE_URL=s3://…)');
  }
  throw new Error(`STORAGE_URL must start with file: or s3://, got ${JSON.stringify(url)}`);
}
