import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { assertValidKey, type BlobStore } from './blob-store.js';

export interface S3Location {
  bucket: string;
  /** Optional key prefix inside the bucket (`s3://bucket/prefix`). */
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
}

/** `s3://BUCKET[/PREFIX]?endpoint=…&region=…&forcePathStyle=true` */
export function parseS3Url(url: string): S3Location {
  const parsed = new URL(url);
  const bucket = parsed.hostname;
  if (!bucket) throw new Error('STORAGE_URL=s3://… needs a bucket name, e.g. s3://punchlist?region=us-east-1');
  const prefix = parsed.pathname.replace(/^\/+|\/+$/g, '');
  return {
    bucket,
    prefix: prefix ? `${prefix}/` : '',
    endpoint: parsed.searchParams.get('endpoint') ?? undefined,
    region: parsed.searchParams.get('region') ?? 'us-east-1',
    forcePathStyle: ['1', 'true'].includes(parsed.searchParams.get('forcePathStyle') ?? ''),
  };
}

/** Blobs as objects of one bucket. A PutObject is atomic in S3: readers never see half an object. */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;

  constructor(
    private readonly location: S3Location,
    credentials?: { accessKeyId: string; secretAccessKey: string },
  ) {
    this.client = new S3Client({
      region: location.region,
      endpoint: location.endpoint,
      forcePathStyle: location.forcePathStyle,
      credentials,
    });
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    assertValidKey(key);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.location.bucket, Key: this.location.prefix + key, Body: data, ContentType: contentType }),
    );
  }

  async get(key: string): Promise<{ stream: Readable; size: number } | null> {
    assertValidKey(key);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.location.prefix + key }));
      return { stream: out.Body as Readable, size: out.ContentLength ?? 0 };
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.location.prefix + key }));
  }

  async *list(prefix: string): AsyncIterable<string> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: this.location.prefix + prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key) yield object.Key.slice(this.location.prefix.length);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async modifiedAt(key: string): Promise<Date | null> {
    assertValidKey(key);
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.location.prefix + key }));
      return out.LastModified ?? null;
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return null;
      throw err;
    }
  }

  /** A PutObject is all or nothing: an interrupted upload leaves nothing in the bucket. */
  async clearLeftovers(_olderThan: Date): Promise<number> {
    return 0;
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.location.bucket }));
  }

  close(): void {
    this.client.destroy();
  }
}
