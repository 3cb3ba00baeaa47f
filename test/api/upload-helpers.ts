import { uploadForm, type UploadFile } from '../helpers/images.js';
import { type TestServer, V1 } from '../helpers/server.js';
import type { UserKey } from '../helpers/workspace.js';

/** Uploads to the file's server and what they left behind (attachments*.test.ts); `server` is read at each call. */
export function uploadHelpers(serverOf: () => TestServer) {
  async function upload(who: UserKey, path: string, fields: Record<string, string>, files: UploadFile[]) {
    return serverOf().call(`${V1}/${path}`, { method: 'POST', token: serverOf().tokens[who], body: uploadForm(fields, files) });
  }

  async function blobKeys(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const key of serverOf().ctx.blobs.list(prefix)) keys.push(key);
    return keys;
  }

  async function attachmentCount(): Promise<number> {
    const row = await serverOf()
      .ctx.db.kysely.selectFrom('attachments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  return { upload, blobKeys, attachmentCount };
}
