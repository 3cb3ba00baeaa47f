import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where uploads wait while they are checked (v1 and the web's photo forms): one private folder per process
 * (mkdtemp: a random name, 0700), a folder per request inside it, files 0600, removed when the request ends
 * and the folder itself when the app closes. Another user of the machine can neither read the images nor
 * plant files where they would be read.
 */
let processFolder: Promise<string> | null = null;

function folderOfProcess(): Promise<string> {
  processFolder ??= mkdtemp(join(tmpdir(), 'punchlist-uploads-'));
  return processFolder;
}

interface UploadDir {
  dir: string;
  /** A new file of the request, readable by this user only. */
  create(name: string): { path: string; stream: WriteStream };
  cleanup(): Promise<void>;
}

export async function newUploadDir(): Promise<UploadDir> {
  const dir = await mkdtemp(join(await folderOfProcess(), 'request-'));
  return {
    dir,
    create(name) {
      const path = join(dir, name);
      return { path, stream: createWriteStream(path, { flags: 'wx', mode: 0o600 }) };
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Removes the process's folder (the app's onClose); a later upload makes a new one. */
export async function removeUploadFolder(): Promise<void> {
  if (!processFolder) return;
  const folder = processFolder;
  processFolder = null;
  await rm(await folder, { recursive: true, force: true });
}
