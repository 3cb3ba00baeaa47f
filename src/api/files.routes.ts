import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type TObject, Type } from 'typebox';
import type { AppContext } from '../composition/context.js';
import { ApiError, type ErrorCode } from '../shared/errors.js';
import type { Scope } from '../domain/scopes.js';
import type { PlanFile } from '../features/plans/plans.service.js';
import { SESSION_USER_HEADER, sessionCookieName } from '../features/sessions/session-cookie.js';
import { type OperationTag, readErrors } from './v1/define-operation.js';
import { QueryId } from './v1/schemas.js';
import { bearerAuth } from './v1/bearer-auth.js';

/**
 * Attachment downloads: `GET /api/items/file.php?id=` and `GET /api/answers/file.php?id=`.
 * The bearer token (scope items:read, same check order as v1) or the web session; streamed WebP bytes.
 * Each is defined once below: the route and its OpenAPI entry (openapi.ts) are made from the definition.
 */
export interface DownloadDefinition {
  owner: 'item' | 'answer' | 'plan';
  /** Relative to `/api` (beside v1, not under it). */
  path: string;
  scope: Scope;
  tag: OperationTag;
  summary: string;
  /** Markdown of the OpenAPI operation, after the summary (the scope is added). */
  description: string;
  query: TObject;
  /** The type of the bytes answered. */
  mediaType: string;
  /** Every error code it can answer: its OpenAPI responses. */
  errors: readonly ErrorCode[];
}

const DOWNLOAD_QUERY = Type.Object(
  { id: QueryId('The attachment id (`attachments[].id` of the item card or of an answer)') },
  { additionalProperties: false },
);

const download = (owner: 'item' | 'answer', path: string): DownloadDefinition => ({
  owner,
  path,
  scope: 'items:read',
  tag: owner === 'item' ? 'items' : 'answers',
  summary: `Download an ${owner} image (WebP bytes, not an envelope)`,
  description:
    `The stored WebP of an ${owner} attachment, as linked by its \`url\`. The v1 token with \`items:read\` (same check order), ` +
    'or the web session in a browser. Unknown or invisible: 404 in the envelope.',
  query: DOWNLOAD_QUERY,
  mediaType: 'image/webp',
  errors: readErrors('not_found', 'validation_error'),
});

/** The downloads, by OpenAPI operationId. */
export const DOWNLOADS = {
  downloadItemImage: download('item', '/items/file.php'),
  downloadAnswerImage: download('answer', '/answers/file.php'),
  downloadPlanSheet: {
    owner: 'plan',
    path: '/plans/file.php',
    scope: 'projects:read',
    tag: 'plans',
    summary: 'Download a plan’s sheet (WebP bytes, not an envelope)',
    description:
      'The whole sheet of a plan as one WebP image, its longest side at most 2048 px (for a closer look, the Deep Zoom ' +
      'tiles of `tiles_url`): the current version, or `version`. The v1 token with `projects:read`, or the web session. ' +
      'A plan (or version) unknown or not visible: 404 in the envelope. Revalidated by ETag (`no-cache`).',
    query: Type.Object(
      {
        id: QueryId('The plan id (`plans[].id` of plans/list.php)'),
        version: Type.Optional(QueryId('A version of the plan (default: its current one)')),
      },
      { additionalProperties: false },
    ),
    mediaType: 'image/webp',
    errors: readErrors('not_found', 'validation_error'),
  },
} satisfies Record<string, DownloadDefinition>;

/**
 * The viewer's tiles of a plan's version (docs/design.md §19): `GET /api/plans/tiles/<plan>/<version>/sheet.dzi` and
 * `…/sheet_files/<level>/<column>_<row>.webp` beside it (the Deep Zoom layout OpenSeadragon reads). Not in the
 * OpenAPI document: the web's viewer reads them (a v1 client may, with `projects:read`).
 */
export const PLAN_TILES_PATH = '/plans/tiles/:plan/:version/*';

export async function filesRoutes(
  app: FastifyInstance,
  deps: Pick<AppContext, 'attachments' | 'sessions' | 'config' | 'tokens' | 'rateLimiter' | 'plans'>,
) {
  const { attachments, sessions, config, plans } = deps;
  // The same per-token quota as v1: a download is a request made with the token.
  const bearer = bearerAuth(deps.tokens, deps.rateLimiter);
  // Without an Authorization header the web session may stand in (images in the web pages).
  app.addHook('onRequest', async (request) => {
    if (request.headers.authorization === undefined && request.routeOptions.config.scope) {
      request.api.sessionUser = await sessions.userFromCookie(request.cookies[sessionCookieName(config.baseUrl)]);
      if (request.api.sessionUser) return;
    }
    await bearer(request);
  });

  // A photo answered through the session names its user (even a 404): the service worker keeps it for that user
  // only, and a photo answered without one tells it that nobody is signed in (web/static/sw.js).
  app.addHook('onSend', async (request, reply) => {
    if (request.api.sessionUser) reply.header(SESSION_USER_HEADER, String(request.api.sessionUser.id));
  });

  const send = (owner: 'item' | 'answer') => async (request: FastifyRequest, reply: FastifyReply) => {
    const id = Number((request.query as { id: string }).id);
    request.api.auditEntity = { type: 'attachment', id };
    const actor = request.api.principal?.user ?? request.api.sessionUser!;
    const file = await attachments.openDownload(actor, owner, id, request.headers['if-none-match']);
    reply.headers({
      etag: file.etag,
      // Revalidated at every use, at a URL the same for everyone: a browser's cache never hands one user's photo
      // to the next user of the device, since the 304 comes only after the access check (docs/design.md §6, §16).
      'cache-control': 'private, no-cache',
      'x-content-type-options': 'nosniff',
    });
    if (file.notModified) return reply.code(304).send();
    reply.headers({ 'content-type': 'image/webp', 'content-length': String(file.size) });
    return reply.send(file.stream);
  };

  /**
   * A plan's files: after the plan's access check, `no-cache` with a strong ETag, so that a browser revalidates
   * every use (a 304 costs the check only) and its cache never hands one user's plan to the next user or to a
   * signed-out visitor (docs/design.md §19, docs/decisions.md "Plans and pins").
   */
  const sendPlanFile = async (request: FastifyRequest, reply: FastifyReply, file: PlanFile) => {
    reply.headers({
      'content-type': file.contentType,
      etag: file.etag,
      'cache-control': 'private, no-cache',
      vary: 'Authorization, Cookie',
      'x-content-type-options': 'nosniff',
    });
    if (request.headers['if-none-match'] === file.etag) {
      file.stream.destroy();
      return reply.code(304).send();
    }
    reply.header('content-length', String(file.size));
    return reply.send(file.stream);
  };
  const actorOf = (request: FastifyRequest) => request.api.principal?.user ?? request.api.sessionUser!;

  for (const { owner, path, scope, query } of Object.values(DOWNLOADS)) {
    if (owner === 'plan') {
      app.get(path, { config: { scope }, schema: { querystring: query } }, async (request, reply) => {
        const { id, version } = request.query as { id: string; version?: string };
        const file = await plans.openSheet(actorOf(request), Number(id), version === undefined ? undefined : Number(version));
        return sendPlanFile(request, reply, file);
      });
      continue;
    }
    app.get(path, { config: { scope }, schema: { querystring: query } }, send(owner));
  }
  app.get(
    PLAN_TILES_PATH,
    {
      config: { scope: 'projects:read' },
      schema: {
        params: Type.Object({
          plan: QueryId('The plan id'),
          version: QueryId('The version'),
          '*': Type.String({ maxLength: 64 }),
        }),
      },
    },
    async (request, reply) => {
      const params = request.params as { plan: string; version: string; '*': string };
      const file = await plans.openTile(actorOf(request), Number(params.plan), Number(params.version), params['*']);
      return sendPlanFile(request, reply, file);
    },
  );
  // Another method on a download path: 405 with Allow, before the token is looked at (docs/design.md §6).
  for (const url of [...Object.values(DOWNLOADS).map((d) => d.path), PLAN_TILES_PATH]) {
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url,
      config: { allow: 'GET, HEAD' },
      handler: async () => {
        throw new ApiError(405, 'method_not_allowed', 'Method not allowed; this path accepts GET, HEAD', undefined, { allow: 'GET, HEAD' });
      },
    });
  }
}
