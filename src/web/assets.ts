import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The one stylesheet and the one script of the web interface: real files under static/, served by
 * @fastify/static (web/plugin.ts) and referred to with their content hash, so they can be cached for a
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
export const FAVICON = asset('favicon.svg');
