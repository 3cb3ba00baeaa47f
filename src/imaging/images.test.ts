import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
// Only tests import sharp besides images.ts: they need it to make their inputs, so no binaries are committed.
import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import { createImageConverter, ImageRejected, type ImageFormat, type ImageProblem } from './images.js';

const images = createImageConverter();

function solid(width: number, height: number, colour = '#c04020') {
  return sharp({ create: { width, height, channels: 3, background: colour } });
}

function encode(image: Sharp, format: ImageFormat): Promise<Buffer> {
  return image.toFormat(format).toBuffer();
}

// Random pixels, so the compressed data is long and a cut lands inside it rather than in the header.
function noise(width: number, height: number) {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } });
}

async function problemOf(attempt: Promise<unknown>): Promise<ImageProblem> {
  try {
    await attempt;
  } catch (err) {
    if (err instanceof ImageRejected) return err.problem;
    throw err;
  }
  throw new Error('expected the image to be rejected');
}

async function pixel(webp: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(webp).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [...data.subarray(at, at + 3)];
}

function isWebp(data: Buffer): boolean {
  return data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP';
}

/** A valid PNG of a few hundred bytes whose header promises width×height pixels. */
function pngDeclaring(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth; colour type 0 (grey), default compression, filter and no interlace follow as zeros
  // A few rows of zeros: the file stays tiny while decoding the declared size would take gigabytes.
  const rows = deflateSync(Buffer.alloc((width + 1) * 8));
  return Buffer.concat([
    Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
    chunk('IHDR', header),
    chunk('IDAT', rows),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('accepted formats', () => {
  it.each<ImageFormat>(['png', 'jpeg', 'gif', 'webp'])('converts %s to WebP', async (format) => {
    const input = await encode(solid(120, 80), format);

    expect(await images.inspect(input)).toEqual({ format, width: 120, height: 80 });
    const out = await images.toWebp(input);
    expect(isWebp(out.data)).toBe(true);
    expect(out).toMatchObject({ width: 120, height: 80, size: out.data.length });
    expect(await sharp(out.data).metadata()).toMatchObject({ format: 'webp', width: 120, height: 80 });
  });

  it('converts several images at once', async () => {
    const formats: ImageFormat[] = ['png', 'jpeg', 'gif', 'webp', 'png', 'jpeg'];
    const inputs = await Promise.all(formats.map((format) => encode(noise(200, 150), format)));
    const outs = await Promise.all(inputs.map((input) => images.toWebp(input)));
    expect(outs.map((o) => [o.width, o.height, isWebp(o.data)])).toEqual(inputs.map(() => [200, 150, true]));
  });
});

describe('size limits', () => {
  it.each([
    [1, 1],
    [15, 15],
    [15, 400],
    [400, 15],
  ])('refuses %i×%i as too small', async (width, height) => {
    const png = await encode(solid(width, height), 'png');
    expect(await problemOf(images.inspect(png))).toBe('too_small');
    expect(await problemOf(images.toWebp(png))).toBe('too_small');
  });

  it('accepts 16×16', async () => {
    const out = await images.toWebp(await encode(solid(16, 16), 'png'));
    expect([out.width, out.height]).toEqual([16, 16]);
  });

  it('refuses a decompression bomb from its header, without decoding it', async () => {
    const bomb = pngDeclaring(30_000, 30_000);
    expect(bomb.length).toBeLessThan(2_000);
    const rssBefore = process.memoryUsage().rss;

    expect(await problemOf(images.inspect(bomb))).toBe('too_many_pixels');
    expect(await problemOf(images.toWebp(bomb))).toBe('too_many_pixels');
    // Decoding 900 megapixels would need gigabytes.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it('takes its limits from the options', async () => {
    const small = createImageConverter({ maxPixels: 1_000, minSide: 4 });
    expect(await problemOf(small.inspect(await encode(solid(40, 40), 'png')))).toBe('too_many_pixels');
    expect(await problemOf(small.inspect(await encode(solid(3, 8), 'png')))).toBe('too_small');
    expect(await small.inspect(await encode(solid(4, 4), 'png'))).toMatchObject({ width: 4, height: 4 });
  });
});

describe('refused content', () => {
  it('refuses text, empty files and unknown bytes as not an image', async () => {
    for (const bytes of [Buffer.from('just some notes\n'), Buffer.alloc(0), randomBytes(4096)]) {
      expect(await problemOf(images.inspect(bytes))).toBe('not_an_image');
      expect(await problemOf(images.toWebp(bytes))).toBe('not_an_image');
    }
  });

  it('refuses SVG, even though sharp could render it', async () => {
    const svgs = [
      '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100"/></svg>',
      '\ufeff<?xml version="1.0"?>\n<!DOCTYPE svg>\n<svg width="100" height="100"></svg>',
    ];
    for (const svg of svgs) {
      expect(await problemOf(images.toWebp(Buffer.from(svg)))).toBe('unsupported_format');
    }
  });

  it.each(['tiff', 'avif'] as const)('refuses %s as an unsupported format', async (format) => {
    const bytes = await solid(64, 64).toFormat(format).toBuffer();
    expect(await problemOf(images.toWebp(bytes))).toBe('unsupported_format');
  });

  it('leaves libvips no loader but the four formats, should bytes ever get past the signature check', async () => {
    const tiff = await solid(64, 64).tiff().toBuffer();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"/>');
    await expect(sharp(tiff).metadata()).rejects.toThrow(/unsupported image format/);
    await expect(sharp(svg).metadata()).rejects.toThrow(/unsupported image format/);
  });

  it.each<ImageFormat>(['png', 'jpeg', 'gif', 'webp'])('refuses a truncated %s as corrupt', async (format) => {
    const whole = await encode(noise(256, 256), format);
    const truncated = whole.subarray(0, Math.floor(whole.length * 0.6));
    expect(await problemOf(images.toWebp(truncated))).toBe('corrupt');
  });

  it('refuses a right signature followed by garbage as corrupt', async () => {
    const fake = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), randomBytes(2048)]);
    expect(await problemOf(images.inspect(fake))).toBe('corrupt');
  });

  it('keeps the cause for the logs', async () => {
    const whole = await encode(noise(64, 64), 'jpeg');
    const err = await images.toWebp(whole.subarray(0, whole.length >> 1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageRejected);
    expect((err as ImageRejected).cause).toBeInstanceOf(Error);
  });
});

describe('normalisation', () => {
  it('applies the EXIF orientation and drops all metadata', async () => {
    // Left half red, right half blue; orientation 6 means "turn 90° clockwise to display".
    const width = 40;
    const height = 20;
    const raw = Buffer.alloc(width * height * 3);
    for (let i = 0; i < width * height; i++) raw.set(i % width < width / 2 ? [255, 0, 0] : [0, 0, 255], i * 3);
    const jpeg = await sharp(raw, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(jpeg).metadata()).orientation).toBe(6);

    expect(await images.inspect(jpeg)).toEqual({ format: 'jpeg', width: 20, height: 40 });
    const out = await images.toWebp(jpeg);
    expect([out.width, out.height]).toEqual([20, 40]);
    const metadata = await sharp(out.data).metadata();
    expect([metadata.width, metadata.height]).toEqual([20, 40]);
    expect(metadata.exif).toBeUndefined();
    expect(metadata.orientation).toBeUndefined();
    expect(metadata.icc).toBeUndefined();
    expect(metadata.xmp).toBeUndefined();
    // The left half is now on top.
    const [topRed, , topBlue] = await pixel(out.data, 10, 5);
    const [bottomRed, , bottomBlue] = await pixel(out.data, 10, 35);
    expect(topRed).toBeGreaterThan(200);
    expect(topBlue).toBeLessThan(60);
    expect(bottomBlue).toBeGreaterThan(200);
    expect(bottomRed).toBeLessThan(60);
  });

  it.each(['gif', 'webp'] as const)('keeps only the first frame of an animated %s', async (format) => {
    const frames = await Promise.all(['#ff0000', '#00ff00', '#0000ff'].map((c) => encode(solid(32, 32, c), 'png')));
    const animated = await sharp(frames, { join: { animated: true } })
      .toFormat(format)
      .toBuffer();
    expect((await sharp(animated).metadata()).pages).toBe(3);

    expect(await images.inspect(animated)).toEqual({ format, width: 32, height: 32 });
    const out = await images.toWebp(animated);
    expect([out.width, out.height]).toEqual([32, 32]);
    const metadata = await sharp(out.data).metadata();
    expect(metadata.pages ?? 1).toBe(1);
    expect([metadata.width, metadata.height]).toEqual([32, 32]);
    const [red, green, blue] = await pixel(out.data, 16, 16);
    expect(red).toBeGreaterThan(200);
    expect(green).toBeLessThan(60);
    expect(blue).toBeLessThan(60);
  });
});

describe('thumbnails', () => {
  it('makes a JPEG that fits the size, keeping the proportions and never enlarging', async () => {
    const { data: webp } = await images.toWebp(await solid(640, 480).png().toBuffer());
    const thumbnail = await images.thumbnail(webp, 240);
    expect(await images.inspect(thumbnail)).toEqual({ format: 'jpeg', width: 240, height: 180 });
    const small = await images.thumbnail(await solid(100, 50).webp().toBuffer(), 240);
    expect(await images.inspect(small)).toEqual({ format: 'jpeg', width: 100, height: 50 });
    await expect(images.thumbnail(Buffer.from('not an image'), 240)).rejects.toBeInstanceOf(ImageRejected);
  });
});
