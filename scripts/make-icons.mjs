/* global Buffer, URL, console */
// Generates the app icons of the web app manifest (src/web/static/icon-192.png, icon-512.png) from one SVG.
// Run once when the icon changes: `node scripts/make-icons.mjs`; the PNGs are committed.
import { writeFileSync } from 'node:fs';
import sharp from 'sharp';

// A white check mark on a clipboard, on the header's dark blue; a wide safe zone so "maskable" crops keep it.
const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">
<rect width="512" height="512" fill="#17324f"/>
<rect x="136" y="104" width="240" height="304" rx="24" fill="none" stroke="#fff" stroke-width="24"/>
<rect x="200" y="84" width="112" height="48" rx="12" fill="#fff"/>
<path d="M186 262 l48 48 l96 -104" fill="none" stroke="#ffbf47" stroke-width="32" stroke-linecap="round" stroke-linejoin="round"/>
</svg>`;

for (const size of [192, 512]) {
  const png = await sharp(Buffer.from(svg)).resize(size, size).png({ compressionLevel: 9 }).toBuffer();
  writeFileSync(new URL(`../src/web/static/icon-${size}.png`, import.meta.url), png);
  console.log(`icon-${size}.png: ${png.length} bytes`);
}
