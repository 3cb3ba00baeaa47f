import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type TObject, Type } from 'typebox';
import type { AppContext } from '../context.js';
import { ApiError, type ErrorCode } from '../errors.js';
import type { Scope } from '../domain/scopes.js';
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
  owner: 'item' | 'answer';
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
} satisfies Record<string, DownloadDefinition>;

export async function filesRoutes(
  app: FastifyInstance,
  deps: Pick<AppContext, 'attachments' | 'sessions' | 'config' | 'tokens' | 'rateLimiter'>,
) {
  const { attachments, sessions, config } = deps;
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
      // to the next user of the device, since the 304 comes only after the access check (DESIGN.md §6, §16).
      'cache-control': 'private, no-cache',
      'x-content-type-options': 'nosniff',
    });
    if (file.notModified) return reply.code(304).send();
    reply.headers({ 'content-type': 'image/webp', 'content-length': String(file.size) });
    return reply.send(file.stream);
  };

  for (const { owner, path, scope, query } of Object.values(DOWNLOADS)) {
    app.get(path, { config: { scope }, schema: { querystring: query } }, send(owner));
  }
  // Another method on a download path: 405 with Allow, before the token is looked at (DESIGN.md §6).
  for (const { path: url } of Object.values(DOWNLOADS)) {
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
