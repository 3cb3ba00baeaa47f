/**
 * Benchmark: accepting a 12-megapixel JPEG through `POST items/attachments.php` against the time
 * sharp alone takes to convert the same file to WebP, measured in the same run.
 * Run: npm run bench:attachments   (not part of npm test)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { createImageConverter } from '../src/imaging/images.js';
import { uploadForm } from '../test/helpers/images.js';
import { startTestServer, V1 } from '../test/helpers/server.js';

const RUNS = Number(process.env.RUNS ?? 8);

async function photo(): Promise<Buffer> {
  // 4000 × 3000 of noise-like content so the encoder does real work, as with a camera photo.
  const width = 4000;
  const height = 3000;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const jpeg = await photo();
  const converter = createImageConverter();
  const server = await startTestServer();
  try {
    const sharpAlone: number[] = [];
    const throughApi: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      let t = performance.now();
      await converter.toWebp(jpeg);
      const a = performance.now() - t;
      t = performance.now();
      const res = await server.request(`${V1}/items/attachments.php`, {
        method: 'POST',
        token: server.tokens.manager,
        body: uploadForm({ item_id: '1000' }, [{ name: 'photo.jpg', bytes: jpeg }]),
      });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      const b = performance.now() - t;
      if (i > 0) {
        // the first round warms up libvips and the JIT
        sharpAlone.push(a);
        throughApi.push(b);
      }
    }
    const result = {
      date: new Date().toISOString(),
      input: { width: 4000, height: 3000, bytes: jpeg.length },
      runs: RUNS,
      sharp_alone_ms_median: Math.round(median(sharpAlone)),
      api_ms_median: Math.round(median(throughApi)),
      overhead_ratio: Math.round((median(throughApi) / median(sharpAlone)) * 100) / 100,
    };
    console.log(`12 MP JPEG (${(jpeg.length / 1e6).toFixed(1)} MB), ${RUNS} runs, medians`);
    console.log(`  sharp alone (JPEG → WebP):       ${result.sharp_alone_ms_median} ms`);
    console.log(`  POST items/attachments.php:      ${result.api_ms_median} ms`);
    console.log(`  overhead ratio (API / sharp):    ${result.overhead_ratio}`);
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(`bench/results/attachments-${result.date.slice(0, 10)}.json`, JSON.stringify(result, null, 2) + '\n');
  } finally {
    await server.close();
  }
}

await main();
