import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { sessionCookieName } from '../features/sessions/session-cookie.js';
import { QueryId } from './v1/schemas.js';
import { bearerAuth } from './v1/bearer-auth.js';

/**
 * Attachment downloads: `GET /api/items/file.php?id=` and `GET /api/answers/file.php?id=`.
 * The bearer token (scope items:read, same check order as v1) or the web session; streamed WebP bytes.
 */
export const DOWNLOAD_PATHS = { item: '/items/file.php', answer: '/answers/file.php' } as const;
export const DOWNLOAD_QUERY = Type.Object({ id: QueryId('The attachment id (from `attachments[].id`)') }, { additionalProperties: false });

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

  const download = (owner: 'item' | 'answer') => async (request: FastifyRequest, reply: FastifyReply) => {
    const id = Number((request.query as { id: string }).id);
    request.api.auditEntity = { type: 'attachment', id };
    const file = await attachments.openDownload(request.api.principal?.user ?? request.api.sessionUser!, owner, id);
    reply.headers({
      'content-type': 'image/webp',
      'content-length': String(file.size),
      etag: file.etag,
      // The bytes under an id never change; private because access is checked per user.
      'cache-control': 'private, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    });
    if (request.headers['if-none-match'] === file.etag) {
      file.stream.destroy();
      return reply.code(304).send();
    }
    return reply.send(file.stream);
  };

  const options = { config: { scope: 'items:read' as const }, schema: { querystring: DOWNLOAD_QUERY } };
  app.get(DOWNLOAD_PATHS.item, options, download('item'));
  app.get(DOWNLOAD_PATHS.answer, options, download('answer'));
  // Another method on a download path: 405 with Allow, before the token is looked at (DESIGN.md §6).
  for (const url of Object.values(DOWNLOAD_PATHS)) {
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
