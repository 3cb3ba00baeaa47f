import type { S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { assertValidKey, type BlobStore } from './blob-store.js';

interface S3Location {
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

type Sdk = typeof import('@aws-sdk/client-s3');
let sdk: Promise<Sdk> | undefined;

/** Blobs as objects of one bucket. A PutObject is atomic in S3: readers never see half an object. */
export class S3BlobStore implements BlobStore {
  /**
   * The SDK is loaded when an S3 store is opened, not with this module: a process on `file:` storage (the
   * default) never holds it, nor does each worker thread of features/offload (10–20 MB of RSS each).
   */
  private readonly s3: Promise<{ sdk: Sdk; client: S3Client }>;

  constructor(
    private readonly location: S3Location,
    credentials?: { accessKeyId: string; secretAccessKey: string },
  ) {
    this.s3 = (sdk ??= import('@aws-sdk/client-s3')).then((loaded) => ({
      sdk: loaded,
      client: new loaded.S3Client({
        region: location.region,
        endpoint: location.endpoint,
        forcePathStyle: location.forcePathStyle,
        credentials,
      }),
    }));
    this.s3.catch(() => undefined); // reported by the first call
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    assertValidKey(key);
    const { sdk, client } = await this.s3;
    await client.send(
      new sdk.PutObjectCommand({ Bucket: this.location.bucket, Key: this.location.prefix + key, Body: data, ContentType: contentType }),
    );
  }

  async get(key: string): Promise<{ stream: Readable; size: number } | null> {
    assertValidKey(key);
    const { sdk, client } = await this.s3;
    try {
      const out = await client.send(new sdk.GetObjectCommand({ Bucket: this.location.bucket, Key: this.location.prefix + key }));
      return { stream: out.Body as Readable, size: out.ContentLength ?? 0 };
    } catch (err) {
      if (err instanceof sdk.NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    const { sdk, client } = await this.s3;
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.location.prefix + key }));
  }

  async *list(prefix: string): AsyncIterable<string> {
    const { sdk, client } = await this.s3;
    let token: string | undefined;
    do {
      const page = await client.send(
        new sdk.ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: this.location.prefix + prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key) yield object.Key.slice(this.location.prefix.length);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async modifiedAt(key: string): Promise<Date | null> {
    assertValidKey(key);
    const { sdk, client } = await this.s3;
    try {
      const out = await client.send(new sdk.HeadObjectCommand({ Bucket: this.location.bucket, Key: this.location.prefix + key }));
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

  /** Access to a bucket is the bucket's policy, not file modes. */
  async restrictToOwner(): Promise<number> {
    return 0;
  }

  async check(): Promise<void> {
    const { sdk, client } = await this.s3;
    await client.send(new sdk.HeadBucketCommand({ Bucket: this.location.bucket }));
  }

  close(): void {
    void this.s3.then(({ client }) => client.destroy());
  }
}
