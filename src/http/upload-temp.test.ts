import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newUploadDir, removeUploadFolder } from './upload-temp.js';

/** Upload temp files (probe finding): a private folder per process, not the shared /tmp/punchlist-uploads/. */
const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

describe('upload temp files', () => {
  it('live in a private folder of the process (0700), a folder per request, files 0600; all removed at close', async () => {
    const [first, second] = [await newUploadDir(), await newUploadDir()];
    const folder = dirname(first.dir);
    expect(dirname(second.dir)).toBe(folder);
    expect(dirname(folder)).toBe(tmpdir());
    expect(folder).not.toBe(join(tmpdir(), 'punchlist-uploads'));
    expect([await mode(folder), await mode(first.dir)]).toEqual(['700', '700']);

    const { path, stream } = first.create('0');
    stream.end('image bytes');
    await once(stream, 'close');
    expect(await mode(path)).toBe('600');
    // A name already there is never written through (a planted file or link).
    const again = first.create('0').stream;
    await expect(once(again, 'open')).rejects.toMatchObject({ code: 'EEXIST' });

    await first.cleanup();
    await expect(stat(first.dir)).rejects.toMatchObject({ code: 'ENOENT' });
    await removeUploadFolder();
    await expect(stat(folder)).rejects.toMatchObject({ code: 'ENOENT' });
    // The next upload makes a new folder.
    const later = await newUploadDir();
    expect(dirname(later.dir)).not.toBe(folder);
    await removeUploadFolder();
  });
});
