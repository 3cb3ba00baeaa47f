import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_DATA_MESSAGE } from '../../src/shared/errors.js';
import { expectError } from '../helpers/envelope.js';
import { pngBomb, solid, uploadForm } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { snapshot } from '../helpers/snapshot.js';

/**
 * Resource limits (OWASP API4): page sizes and the per-token rate limit hold under concurrency, and
 * decompression bombs are refused from their headers. Slow clients: test/reliability/slow-clients.test.ts
 * (they do not depend on the database). Body and header size limits: test/api/limits.test.ts.
 */

describe('page sizes and the per-token rate limit', () => {
  const LIMIT = 20;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  });
  afterAll(() => server.close());

  const tokenOf = async (name: string) =>
    (
      await server.ctx.tokens.createToken({
        userId: 1,
        name,
        scopes: ['projects:read', 'projects:search', 'items:read', 'comments:write'],
        expiresAt: null,
      })
    ).token;

  it('limit is 1–200 and offset ≥ 0 on list and search; nothing is clamped', async () => {
    const token = await tokenOf('pages');
    for (const path of [`${V1}/projects/list.php?`, `${V1}/projects/search.php?id=1&q=e&`]) {
      for (const bad of [
        'limit=0',
        'limit=201',
        'limit=-1',
        'limit=1e2',
        'limit=abc',
        'limit=999999999999',
        'offset=-1',
        'offset=1.5',
        'offset=99999999999999999999',
      ]) {
        expectError(await server.call(path + bad, { token }), 422, 'validation_error');
      }
      const max = await server.call(`${path}limit=200`, { token });
      expect(max.status).toBe(200);
      expect(max.body.data.limit).toBe(200);
    }
  });

  it(`${LIMIT} per minute: a burst of 3 × ${LIMIT} concurrent requests gets exactly ${LIMIT} through; the rest are 429, write nothing; other tokens are unaffected`, async () => {
    const token = await tokenOf('burst');
    const other = await tokenOf('other');
    const before = await snapshot(server.ctx.db.kysely, server.ctx.db.dialect);
    const burst = await Promise.all(
      Array.from({ length: 3 * LIMIT }, (_, i) =>
        i % 2 === 0
          ? server.call(`${V1}/projects/list.php`, { token })
          : server.call(`${V1}/comments/create.php`, { method: 'POST', token, json: { item_id: 1000, text: `burst ${i}` } }),
      ),
    );
    const passed = burst.filter((r) => r.status !== 429);
    const refused = burst.filter((r) => r.status === 429);
    console.log(
      `rate limit: burst of ${burst.length} concurrent requests at ${LIMIT}/min → ${passed.length} served, ${refused.length} × 429`,
    );
    expect(passed).toHaveLength(LIMIT);
    for (const r of refused) {
      expectError(r, 429, 'rate_limited');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const comments = passed.filter((r) => r.status === 201).length;
    const after = await snapshot(server.ctx.db.kysely, server.ctx.db.dialect);
    expect(after.comments!.rows - before.comments!.rows).toBe(comments);
    expect((await server.call(`${V1}/projects/list.php`, { token: other })).status).toBe(200);
  });

  it('downloads count against the same quota', async () => {
    const admin = await server.ctx.tokens.createToken({ userId: 1, name: 'uploader', scopes: ['items:materials.write'], expiresAt: null });
    const up = await server.call(`${V1}/items/attachments.php`, {
      method: 'POST',
      token: admin.token,
      body: uploadForm({ item_id: '1000' }, [{ name: 'a.png', bytes: await solid(16, 16, 'png') }]),
    });
    expect(up.status).toBe(201);
    const token = await tokenOf('downloads');
    const statuses = [];
    for (let i = 0; i < LIMIT + 5; i++)
      statuses.push((await server.request(`/api/items/file.php?id=${up.body.data.attachments[0].id}`, { token })).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT)).toEqual([429, 429, 429, 429, 429]);
    expectError(await server.call(`${V1}/projects/list.php`, { token }), 429, 'rate_limited');
  });
});

describe('decompression bombs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  });
  afterAll(() => server.close());

  /** Small files whose headers declare billions of pixels (patched from real images). */
  async function bombs(): Promise<Record<string, Buffer>> {
    const base = (format: 'jpeg' | 'gif' | 'webp') =>
      sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 9, g: 9, b: 9 } } })
        .toFormat(format)
        .toBuffer();
    const jpeg = Buffer.from(await base('jpeg'));
    for (let i = 2; i < jpeg.length - 9;) {
      if (jpeg[i] !== 0xff) {
        i++;
        continue;
      }
      const marker = jpeg[i + 1]!;
      if (marker >= 0xc0 && marker <= 0xc3) {
        jpeg.writeUInt16BE(65000, i + 5);
        jpeg.writeUInt16BE(65000, i + 7);
        break;
      }
      i += 2 + jpeg.readUInt16BE(i + 2);
    }
    const gif = Buffer.from(await base('gif'));
    gif.writeUInt16LE(65535, 6);
    gif.writeUInt16LE(65535, 8);
    const descriptor = gif.indexOf(0x2c, 13);
    gif.writeUInt16LE(65535, descriptor + 5);
    gif.writeUInt16LE(65535, descriptor + 7);
    const webp = Buffer.from(await base('webp'));
    const frame = webp.indexOf('VP8 ') + 8 + 6;
    webp.writeUInt16LE(16383, frame);
    webp.writeUInt16LE(16383, frame + 2);
    return { 'bomb.png': pngBomb(30_000, 30_000), 'bomb.jpg': jpeg, 'bomb.gif': gif, 'bomb.webp': webp };
  }

  it('PNG, JPEG, GIF and WebP bombs are refused from their headers: fast, without the memory a decode would take', async () => {
    for (const [name, bytes] of Object.entries(await bombs())) {
      const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
      expect(meta.width * meta.height, name).toBeGreaterThan(200_000_000);
      const rssBefore = process.memoryUsage().rss;
      const started = performance.now();
      const res = await server.call(`${V1}/items/attachments.php`, {
        method: 'POST',
        token: server.tokens.admin,
        body: uploadForm({ item_id: '1000' }, [{ name, bytes }]),
      });
      const ms = performance.now() - started;
      const grewMb = (process.memoryUsage().rss - rssBefore) / 1e6;
      console.log(
        `bomb ${name}: ${bytes.length} bytes declaring ${meta.width}×${meta.height} → ${res.status} in ${Math.round(ms)} ms, RSS +${Math.round(grewMb)} MB`,
      );
      expectError(res, 422, 'validation_error');
      expect(res.body.error.message).toBe(INVALID_DATA_MESSAGE);
      expect(res.body.error.details[0].message).toMatch(/pixels/);
      expect(ms).toBeLessThan(2000);
      // Decoding 900 megapixels would take gigabytes.
      expect(grewMb).toBeLessThan(200);
    }
  });

  it('a gzip bomb sent as a compressed JSON body is never inflated', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    const rssBefore = process.memoryUsage().rss;
    const res = await server.call(`${V1}/comments/create.php`, {
      method: 'POST',
      token: server.tokens.admin,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.ok).toBe(false);
    expect((process.memoryUsage().rss - rssBefore) / 1e6).toBeLessThan(40);
  });
});
