import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../shared/config.js';
import { SESSION_USER_HEADER, sessionUserCookieName } from '../../features/sessions/session-cookie.js';
import { ICONS, PRECACHED_ASSETS, STATIC_VERSION } from '../assets.js';
import { html } from '../html.js';
import { languageOf, page } from '../layout.js';

/** The page the service worker shows for a page it has not kept: public, so it is kept at installation. */
const OFFLINE_PATH = '/offline';

const MANIFEST = JSON.stringify({
  name: 'Punchlist',
  short_name: 'Punchlist',
  description: 'Checklists and punch items on site',
  start_url: '/my-items',
  scope: '/',
  display: 'standalone',
  background_color: '#f6f7f9',
  theme_color: '#17324f',
  icons: ICONS.map((icon) => ({ src: icon.path, sizes: `${icon.size}x${icon.size}`, type: 'image/png', purpose: 'any maskable' })),
});

const WORKER_SOURCE = readFileSync(new URL('../static/sw.js', import.meta.url), 'utf8');

/**
 * The hand-written worker (static/sw.js) with its release, the files to keep at installation and the names by
 * which the server tells it who is signed in written in front of it, so the browser sees a new worker whenever
 * a static file changed.
 */
const workerScript = (config: Pick<Config, 'baseUrl'>) =>
  [
    `const VERSION = ${JSON.stringify(STATIC_VERSION)};`,
    `const PRECACHE = ${JSON.stringify([...PRECACHED_ASSETS, OFFLINE_PATH])};`,
    `const OFFLINE_PAGE = ${JSON.stringify(OFFLINE_PATH)};`,
    `const USER_HEADER = ${JSON.stringify(SESSION_USER_HEADER)};`,
    `const USER_COOKIE = ${JSON.stringify(sessionUserCookieName(config.baseUrl))};`,
    WORKER_SOURCE,
  ].join('\n');

/**
 * What makes Punchlist an installable app that opens without a network (docs/design.md §16): the web app
 * manifest, the service worker at the root (scope `/`, never cached by HTTP so a release reaches every
 * phone at its next visit) and the offline page.
 */
export async function appShellPages(app: FastifyInstance, deps: { config: Pick<Config, 'baseUrl'> }) {
  const worker = workerScript(deps.config);
  app.get('/manifest.webmanifest', { config: { web: 'public' } }, async (_request, reply) =>
    reply.type('application/manifest+json; charset=utf-8').header('cache-control', 'no-cache').send(MANIFEST),
  );

  app.get('/sw.js', { config: { web: 'public' } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').header('service-worker-allowed', '/').send(worker),
  );

  // In the browser's language when the worker keeps it at installation (the user's, once signed in).
  app.get(OFFLINE_PATH, { config: { web: 'public' } }, async (request, reply) => {
    const { language, t } = languageOf(null, request.language);
    return reply
      .type('text/html; charset=utf-8')
      .header('vary', 'Accept-Language')
      .send(
        page({
          title: t('offline.title'),
          session: null,
          language,
          body: html`<h1>${t('offline.heading')}</h1>
<p role="status">${t('offline.notKept')}</p>
<p>${t('offline.kept')} <a href="/my-items">${t('nav.myItems')}</a> ${t('offline.keptItems')}</p>`,
        }).value,
      );
  });

  // Pages of a signed-in user name the user, so the worker keeps them in that user's cache only.
  app.addHook('onSend', async (request, reply) => {
    const type = reply.getHeader('content-type');
    if (request.webSession && typeof type === 'string' && type.startsWith('text/html'))
      reply.header(SESSION_USER_HEADER, String(request.webSession.user.id));
  });
}
