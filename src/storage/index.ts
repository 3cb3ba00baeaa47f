import { resolve } from 'node:path';
import type { BlobStore } from './blob-store.js';
import { DiskBlobStore } from './disk-blob-store.js';
import { parseS3Url, S3BlobStore } from './s3-blob-store.js';

export type { BlobStore } from './blob-store.js';
export { DiskBlobStore, PRIVATE_DIR, PRIVATE_FILE } from './disk-blob-store.js';

/**
 * `file:PATH` (relative to the working directory) or `s3://BUCKET[/PREFIX]?endpoint=…&region=…&forcePathStyle=true`,
 * as STORAGE_URL spells it. Without explicit credentials S3 uses the SDK's default chain.
 */
export function openBlobStore(url: string, credentials?: { accessKeyId: string; secretAccessKey: string }): BlobStore {
  if (url.startsWith('file:')) {
    const path = url.slice('file:'.length);
    if (path === '') throw new Error('STORAGE_URL=file: needs a directory, e.g. file:./data/storage');
    return new DiskBlobStore(resolve(process.cwd(), path));
  }
  if (url.startsWith('s3://')) return new S3BlobStore(parseS3Url(url), credentials);
  throw new Error(`STORAGE_URL must start with file: or s3://, got ${JSON.stringify(url)}`);
}
