import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The one stylesheet and the one script of the web interface: real files under static/, served by
 * @fastify/static (web/web-plugin.ts) and referred to with their content hash, so they can be cached for a
 * year. Files, not inline code, so the Content-Security-Policy forbids inline code. Every page works
 * without the script; it only adds comfort.
 */
export const STATIC_DIR = fileURLToPath(new URL('./static/', import.meta.url));

function asset(name: string) {
  const hash = createHash('sha256')
    .update(readFileSync(new URL(`./static/${name}`, import.meta.url)))
    .digest('hex')
    .slice(0, 12);
  return { path: `/assets/${name}?v=${hash}` };
}

export const STYLESHEET = asset('app.css');
export const SCRIPT = asset('app.js');

/** The offline layer (service worker registration, write queue, drafts, photo scaling, menu): web/static/offline.js. */
export const OFFLINE_SCRIPT = asset('offline.js');
/** The plan's page (docs/design.md §19): its viewer, on top of OpenSeadragon. */
export const PLAN_VIEWER_SCRIPT = asset('plan-viewer.js');

/**
 * Libraries the pages load from the app itself, never from a CDN: served by @fastify/static from their npm
 * package under /assets/vendor/, named with their content hash like our own files.
 */
const openSeadragonFile = createRequire(import.meta.url).resolve('openseadragon/build/openseadragon/openseadragon.min.js');
export const VENDOR_DIR = dirname(openSeadragonFile);
export const VENDOR_FILES = ['openseadragon.min.js'];
export const OPENSEADRAGON = {
  path: `/assets/vendor/openseadragon.min.js?v=${createHash('sha256').update(readFileSync(openSeadragonFile)).digest('hex').slice(0, 12)}`,
};

/** Konva (MIT), the drawing surface of the markup view (docs/design.md §22), from its npm package like OpenSeadragon. */
// The package exports no subpath for its browser build: found beside its package.json.
const konvaFile = `${dirname(createRequire(import.meta.url).resolve('konva/package.json'))}/konva.min.js`;
export const KONVA_DIR = dirname(konvaFile);
export const KONVA_FILES = ['konva.min.js'];
export const KONVA = {
  path: `/assets/vendor/konva/konva.min.js?v=${createHash('sha256').update(readFileSync(konvaFile)).digest('hex').slice(0, 12)}`,
};
/** The markup view: drawing on a photo and saving the picture (web/static/markup.js). */
export const MARKUP_SCRIPT = asset('markup.js');

export const ICONS = [192, 512].map((size) => ({ size, ...asset(`icon-${size}.png`) }));

/**
 * The release of the static files, for the service worker (docs/design.md §16): a hash of every file under
 * static/ taken at start-up, so a release that changes any of them installs a new worker, whose
 * activation deletes the caches of the old one.
 */
export const STATIC_VERSION = (() => {
  const hash = createHash('sha256');
  for (const name of readdirSync(STATIC_DIR).sort()) hash.update(name).update(readFileSync(new URL(`./static/${name}`, import.meta.url)));
  return hash.digest('hex').slice(0, 16);
})();

/** The files the service worker keeps from its installation on: the stylesheet, the scripts, the icons. */
export const PRECACHED_ASSETS = [STYLESHEET.path, SCRIPT.path, OFFLINE_SCRIPT.path, ...ICONS.map((icon) => icon.path)];
export const FAVICON = asset('favicon.svg');
