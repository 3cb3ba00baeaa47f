import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { AppContext } from '../composition/context.js';
import { KONVA_DIR, KONVA_FILES, STATIC_DIR, VENDOR_DIR, VENDOR_FILES } from './assets.js';
import { webErrorHandler, webNotFoundHandler } from './errors.js';
import { formBodies } from './form.js';
import { adminCompanyPages } from './pages/admin/companies.js';
import { adminProjectPages } from './pages/admin/projects.js';
import { adminUserPages } from './pages/admin/users.js';
import { appShellPages } from './pages/app-shell.js';
import { auditPages } from './pages/audit.js';
import { authPages } from './pages/auth.js';
import { invitationPages } from './pages/invitations.js';
import { itemPages } from './pages/items.js';
import { notificationPages } from './pages/notifications.js';
import { oauthPages } from './pages/oauth.js';
import { accountPages, profilePages } from './pages/profile.js';
import { type HeavyReads, projectPages } from './pages/projects.js';
import { dashboardPages } from './pages/dashboard.js';
import { structurePages } from './pages/structure.js';
import { planPages } from './pages/plans.js';
import { reportPages } from './pages/reports.js';
import { webSessions } from './session.js';
import { createWebWriter, type NavigationCounts, type WebWriter } from './web-write.js';

/** The web's heavy reads and the navigation's counts, made from the context (see webPlugin). */
function navigationOf(ctx: AppContext, heavyReads: HeavyReads): NavigationCounts {
  const { notifications } = ctx;
  // The navigation's counts ("To review", "Notifications") of a page shown to a signed-in user, made once per
  // request. "To review" itself counts the queue it lists (web/pages/projects.ts): the same count is not made twice.
  return async (request) => {
    const session = request.webSession;
    if (!session || session.unreadNotifications !== undefined) return;
    const reviewPage = request.routeOptions.url === '/review';
    [session.toReview, session.unreadNotifications] = await Promise.all([
      reviewPage ? null : heavyReads().reviewCount(session.user),
      notifications.unreadCount(session.user.id),
    ]);
  };
}

/** The hooks that give every page its navigation counts, and the HTML error pages (web/errors.ts). */
function pageHooks(app: FastifyInstance, navigation: NavigationCounts) {
  // Every page a GET opens; not the script's refresh of the unread count, which asks for that count alone. A POST
  // mostly answers with a redirect: its page (a refused form, a secret shown once, an error) counts when it is
  // shown (web-write.ts, below).
  app.addHook('preHandler', async (request) => {
    if (request.method !== 'GET' || request.url.startsWith('/assets/') || request.url === '/notifications/count') return;
    await navigation(request);
  });
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    // An error page of a POST keeps the navigation too; counting must not hide the error being shown (a database
    // failure would fail the count as well): then the page goes without the counts.
    if (request.method !== 'GET' && !request.url.startsWith('/assets/')) await navigation(request).catch(() => undefined);
    return webErrorHandler(error, request, reply);
  });
  app.setNotFoundHandler(webNotFoundHandler);
}

/** One policy for every page (helmet), and no shared cache of a page. */
async function securityHeaders(app: FastifyInstance, config: AppContext['config']) {
  // Security headers (helmet), one policy for every page: no inline code, forms and frames kept to this site.
  // Attachment images are served by the API under BASE_URL, which may be another origin than the page's;
  // `blob:` is the preview of photos chosen for upload.
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", new URL(config.baseUrl).origin, 'blob:'],
        styleSrc: ["'self'"],
        scriptSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: config.baseUrl.startsWith('https:'),
  });
  app.addHook('onSend', async (request, reply) => {
    if (!request.url.startsWith('/assets/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-cache');
  });
}

/** The stylesheet, the scripts, the vendored libraries and the icon: public, cached for a year (by content hash). */
async function staticAssets(app: FastifyInstance) {
  // The stylesheet and the script, named with their content hash by the pages (web/assets.ts): public.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/assets/')) route.config = { ...route.config, web: 'public' };
  });
  await app.register(fastifyStatic, {
    root: STATIC_DIR,
    prefix: '/assets/',
    maxAge: '365d',
    immutable: true,
    index: false,
    wildcard: false,
  });
  await app.register(fastifyStatic, {
    root: VENDOR_DIR,
    prefix: '/assets/vendor/',
    maxAge: '365d',
    immutable: true,
    index: false,
    wildcard: false,
    decorateReply: false,
    allowedPath: (path) => VENDOR_FILES.includes(path.replace(/^\//, '')),
  });
  await app.register(fastifyStatic, {
    root: KONVA_DIR,
    prefix: '/assets/vendor/konva/',
    maxAge: '365d',
    immutable: true,
    index: false,
    wildcard: false,
    decorateReply: false,
    allowedPath: (path) => KONVA_FILES.includes(path.replace(/^\//, '')),
  });
  // Browsers ask for /favicon.ico on pages (and files) that do not name their icon: the same SVG.
  app.get('/favicon.ico', { config: { web: 'public' } }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').sendFile('favicon.svg', STATIC_DIR),
  );
}

/** The page modules: each receives the services it calls, and nothing else. */
async function pageModules(app: FastifyInstance, ctx: AppContext, webWrite: WebWriter, heavyReads: HeavyReads) {
  const { config, clock, sessions, tokens, webhooks, projects, review, items, itemWrites, comments, answers, attachments, events } = ctx;
  const { audit, usersAdmin, structure, members, oauth, notifications } = ctx;
  await notificationPages(app, { notifications, webWrite });
  await appShellPages(app, { config });
  await authPages(app, { sessions, config, webWrite });
  const profileDeps = { tokens, webhooks, projects, config, clock, oauth, notifications, users: ctx.users, webWrite };
  await profilePages(app, profileDeps);
  await accountPages(app, { ...profileDeps, sessions });
  await oauthPages(app, { oauth, clock, projects, webWrite });
  await projectPages(app, {
    vocabulary: ctx.vocabulary,
    companies: ctx.companies,
    invitations: ctx.invitations,
    companyPacks: ctx.companyPacks,
    projects,
    review,
    heavyReads,
    structure,
    bulkChanges: ctx.bulkChanges,
    webWrite,
  });
  await invitationPages(app, { invitations: ctx.invitations, companies: ctx.companies, sessions, config, webWrite });
  await dashboardPages(app, { dashboard: ctx.dashboard });
  await itemPages(app, {
    items,
    itemWrites,
    comments,
    answers,
    attachments,
    review,
    clock,
    events,
    itemEdits: ctx.itemEdits,
    planViews: ctx.planViews,
    itemLocations: ctx.itemLocations,
    vocabulary: ctx.vocabulary,
    itemDisputes: ctx.itemDisputes,
    webWrite,
  });
  await auditPages(app, { audit, tokens, usersAdmin });
  await adminUserPages(app, { usersAdmin, webWrite });
  await adminProjectPages(app, { structure, members, usersAdmin, templates: ctx.templates, webWrite });
  await adminCompanyPages(app, { companies: ctx.companies, webWrite });
  await structurePages(app, {
    structure,
    itemEdits: ctx.itemEdits,
    attachments,
    planViews: ctx.planViews,
    vocabulary: ctx.vocabulary,
    templates: ctx.templates,
    webWrite,
  });
  await planPages(app, { planViews: ctx.planViews, planUploads: ctx.planUploads, items, config, webWrite });
  await reportPages(app, { projects, reports: ctx.reports });
}

/**
 * The web interface: server-rendered pages over the same services and access policy as the API.
 * Its own scope: form bodies, session cookie, CSRF check, HTML errors and security headers.
 */
export async function webPlugin(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  await formBodies(app);
  webSessions(app, { sessions: ctx.sessions, config: ctx.config });
  // The pages' heavy reads (a project's page, "To review" and its count on every page: tens to hundreds of ms
  // in a large workspace) run in the worker thread (features/offload) once it runs (`serve` starts it when it
  // listens); before that (a test server's first pages) inline, rather than wait seconds for a thread's start.
  const heavyReads: HeavyReads = () => (ctx.offload.stats().workers > 0 ? ctx.offloadedReads : ctx.worklists);
  const navigation = navigationOf(ctx, heavyReads);
  pageHooks(app, navigation);
  await securityHeaders(app, ctx.config);
  await staticAssets(app);
  // Every form that changes something goes through this one path (web-write.ts).
  const webWrite = createWebWriter({ idempotency: ctx.idempotency, audit: ctx.audit, navigation });
  await pageModules(app, ctx, webWrite, heavyReads);
}
