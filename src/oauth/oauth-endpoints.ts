import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../features/oauth/oauth-protocol.js';
import type { OAuthService } from '../features/oauth/oauth.service.js';
import type { RateLimiter } from '../features/rate-limit/rate-limiter.js';
import { urlEncodedForms } from '../http/form-body.js';
import { authorizationServerMetadata, PROTECTED_RESOURCES, protectedResourceMetadata } from './metadata.js';

interface OAuthEndpointsOptions {
  oauth: OAuthService;
  urls: { baseUrl: string };
  /** Per client IP; null: unlimited. */
  limits: { register: RateLimiter | null; token: RateLimiter | null };
}

/** Token and revocation requests are small forms. */
const FORM_LIMIT = 16 * 1024;

/**
 * The machine side of OAuth 2.1 (docs/design.md §12): metadata (RFC 8414, RFC 9728), dynamic client
 * registration (RFC 7591), the token endpoint and revocation (RFC 7009). Errors in the RFC 6749 §5.2
 * shape. Public and token-less, so CORS is open to any origin (never with credentials): browser-based
 * MCP clients discover and exchange from their own page. The consent page is a web page (web/pages/oauth.ts).
 */
export async function oauthEndpoints(app: FastifyInstance, options: OAuthEndpointsOptions) {
  const { oauth, urls, limits } = options;
  await urlEncodedForms(app, FORM_LIMIT);
  app.setErrorHandler(oauthErrorHandler);
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('access-control-allow-origin', '*');
  });

  app.get('/.well-known/oauth-authorization-server', async () => authorizationServerMetadata(urls.baseUrl));
  for (const suffix of Object.keys(PROTECTED_RESOURCES) as (keyof typeof PROTECTED_RESOURCES)[]) {
    app.get(`/.well-known/oauth-protected-resource${suffix}`, async () => protectedResourceMetadata(urls.baseUrl, suffix));
  }

  // Other well-known documents (openid-configuration, ...): a plain 404 a client can act on, not the sign-in page.
  app.get('/.well-known/*', async (_request, reply) =>
    sendOAuthError(reply, new OAuthError('not_found', 'No such metadata on this server', 404)),
  );

  app.post('/oauth/register', async (request, reply) => {
    await checkRate(limits.register, 'oauth-register', request);
    return reply
      .code(201)
      .header('cache-control', 'no-store')
      .send(await oauth.registerClient(request.body));
  });

  app.post('/oauth/token', async (request, reply) => {
    await checkRate(limits.token, 'oauth-token', request);
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    return oauth.token(tokenParams(request));
  });

  app.post('/oauth/revoke', async (request, reply) => {
    await checkRate(limits.token, 'oauth-token', request);
    await oauth.revoke(tokenParams(request));
    return reply.header('cache-control', 'no-store').send({});
  });

  // CORS preflights of the endpoints a browser-based client calls.
  for (const path of ['/oauth/register', '/oauth/token', '/oauth/revoke']) {
    app.options(path, async (_request, reply) =>
      reply
        .code(204)
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', 'Content-Type, Authorization, MCP-Protocol-Version')
        .header('access-control-max-age', '600')
        .send(),
    );
  }
}

async function checkRate(limiter: RateLimiter | null, name: string, request: FastifyRequest) {
  if (!limiter) return;
  const decision = await limiter.consume(`${name}:${request.ip}`);
  if (!decision.allowed) {
    throw Object.assign(
      new OAuthError('temporarily_unavailable', `Too many requests from this address: retry in ${decision.resetSeconds} s`, 429),
      {
        retryAfter: decision.resetSeconds,
      },
    );
  }
}

/**
 * The parameters of a token or revocation request: a form (RFC 6749 §3.2), each parameter at most once;
 * a public client names itself with `client_id`, in the form or as the user of HTTP Basic without a secret.
 */
function tokenParams(request: FastifyRequest): Record<string, string> {
  if (!(request.body instanceof URLSearchParams))
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded');
  const params: Record<string, string> = {};
  for (const [name, value] of request.body) {
    if (name in params) throw new OAuthError('invalid_request', `${name} is repeated`);
    params[name] = value;
  }
  const basic = /^basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (basic) {
    const [user = '', secret = ''] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
    let clientId: string;
    try {
      clientId = decodeURIComponent(user);
    } catch {
      throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials', 401);
    }
    if (secret) throw new OAuthError('invalid_client', 'Clients of this server are public: no client secret', 401);
    if (params.client_id !== undefined && params.client_id !== clientId)
      throw new OAuthError('invalid_request', 'Two different client_id values');
    params.client_id = clientId;
  }
  return params;
}

function sendOAuthError(reply: FastifyReply, error: OAuthError) {
  if (error.status === 401) reply.header('www-authenticate', 'Basic realm="punchlist"');
  const retryAfter = (error as OAuthError & { retryAfter?: number }).retryAfter;
  if (retryAfter) reply.header('retry-after', String(retryAfter));
  return reply
    .code(error.status)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send({ error: error.error, error_description: error.description });
}

function oauthErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof OAuthError) return sendOAuthError(reply, error);
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // Malformed JSON, a wrong content type, a body too large: the client's request, in the RFC's shape.
    const code = request.url.startsWith('/oauth/register') ? 'invalid_client_metadata' : 'invalid_request';
    return sendOAuthError(reply, new OAuthError(code, error.message, status === 415 || status === 413 ? status : 400));
  }
  request.log.error({ err: error }, 'OAuth request failed');
  return sendOAuthError(reply, new OAuthError('server_error', 'An unexpected error occurred', 500));
}
