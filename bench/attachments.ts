/**
 * Benchmark: accepting a 12-megapixel JPEG through `POST items/attachments.php` against the time
 * bare sharp takes to convert the same file to WebP with the same options, measured in the same run.
 * The ratio is the cost of the whole accept path (HTTP, multipart to a temp file, auth, header check,
 * conversion slot, blob write, rows, audit) over the conversion alone.
 * Run: npm run bench:attachments   (not part of npm test)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { uploadForm } from '../test/helpers/images.js';
import { startTestServer, V1 } from '../test/helpers/server.js';

const RUNS = Number(process.env.RUNS ?? 8);

async function photo(): Promise<Buffer> {
  // 4000 × 3000 of noise-like content so the encoder does real work, as with a camera photo.
  const width = 4000;
  const height = 3000;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/**
 * The conversion as src/imaging/images.ts does it (first frame, EXIF orientation applied, WebP at
 * quality 80 / effort 4, metadata dropped), called on sharp directly: none of the app's checks or its
 * conversion slot. Keep these options in step with WEBP_OPTIONS there; the warm-up round checks that the
 * upload stored exactly these bytes.
 */
function bareSharp(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes, { failOn: 'error', limitInputPixels: 50_000_000, pages: 1 }).rotate().webp({ quality: 80, effort: 4 }).toBuffer();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const jpeg = await photo();
  const server = await startTestServer();
  try {
    const sharpAlone: number[] = [];
    const throughApi: number[] = [];
    let sameOutput = false;
    for (let i = 0; i < RUNS + 1; i++) {
      let t = performance.now();
      const bare = await bareSharp(jpeg);
      const a = performance.now() - t;
      t = performance.now();
      const res = await server.request(`${V1}/items/attachments.php`, {
        method: 'POST',
        token: server.tokens.manager,
        body: uploadForm({ item_id: '1000' }, [{ name: 'photo.jpg', bytes: jpeg }]),
      });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      const b = performance.now() - t;
      if (i === 0) {
        // Same options, same libwebp, same bytes; otherwise the baseline is not the app's conversion.
        const { url } = ((await res.json()) as { data: { attachments: Array<{ url: string }> } }).data.attachments[0]!;
        const stored = Buffer.from(
          await (await fetch(url, { headers: { authorization: `Bearer ${server.tokens.manager}` } })).arrayBuffer(),
        );
        sameOutput = stored.equals(bare);
      } else {
        await res.arrayBuffer();
        // The first round warms up libvips and the JIT.
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
      baseline: 'bare sharp: rotate() + webp({ quality: 80, effort: 4 })',
      baseline_same_output: sameOutput,
    };
    console.log(`12 MP JPEG (${(jpeg.length / 1e6).toFixed(1)} MB), ${RUNS} runs, medians`);
    console.log(`  bare sharp (JPEG → WebP):        ${result.sharp_alone_ms_median} ms`);
    console.log(`  POST items/attachments.php:      ${result.api_ms_median} ms`);
    console.log(`  overhead ratio (API / sharp):    ${result.overhead_ratio}`);
    if (!sameOutput)
      console.log('  warning: bare sharp and the API stored different bytes: the baseline options drifted from src/imaging/images.ts');
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(`bench/results/attachments-${result.date.slice(0, 10)}.json`, JSON.stringify(result, null, 2) + '\n');
  } finally {
    await server.close();
  }
}

await main();
