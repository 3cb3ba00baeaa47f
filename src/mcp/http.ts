import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerChallenge, meta } from '../api/envelope.js';
import type { OperationRegistry } from '../api/v1/define-operation.js';
import { createPunchlistClient } from '../client/index.js';
import type { AppContext } from '../context.js';
import { ApiError, unauthorized } from '../errors.js';
import { protectedResourceMetadataUrl } from '../oauth/metadata.js';
import { createMcpServer } from './server.js';

/**
 * MCP over streamable HTTP at /mcp, stateless (a server and transport per request, JSON responses),
 * with the same bearer tokens as v1. Tool calls run the v1 operations in-process through the typed
 * client (`app.inject`, carrying the caller's IP, user agent and request id), so scopes, validation,
 * rate limit and audit records are those of v1. The MCP exchange itself (initialize, tools/list) is
 * not a v1 call and is not audited; each tool call is.
 */

/** Base64 images of up to 10 files make large bodies; v1 still enforces its own limits per file. */
export const MCP_BODY_LIMIT = 50 * 1024 * 1024;

const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

function bearerToken(header: string | undefined): string | null {
  if (!header || !/^bearer(?:\s|$)/i.test(header)) return null;
  return header.slice('bearer'.length).trim() || null;
}

/**
 * What the 401 body adds: a generic client follows the challenge's `resource_metadata` (RFC 9728) to the
 * authorization server (DESIGN.md §12); a person reading the body learns both ways in.
 */
const HOW_TO_AUTHENTICATE =
  'Connect with OAuth (the WWW-Authenticate header names the protected resource metadata), or send ' +
  '"Authorization: Bearer <API token>", a personal token created in the web interface (Profile → External API tokens).';

/** 401 with a WWW-Authenticate challenge (RFC 6750) naming the protected resource metadata (RFC 9728), and the v1 error envelope. */
function sendUnauthorized(request: FastifyRequest, reply: FastifyReply, error: ApiError, baseUrl: string) {
  const metadata = `resource_metadata="${protectedResourceMetadataUrl(baseUrl)}"`;
  const base = `Bearer ${metadata}, ${bearerChallenge(error.code).slice('Bearer '.length)}`;
  const challenge = error.code === 'unauthorized' ? base : `${base}, error_description="${error.message.replace(/"/g, "'")}"`;
  return reply
    .code(401)
    .header('www-authenticate', challenge)
    .type('application/json; charset=utf-8')
    .send({ ok: false, error: { code: error.code, message: `${error.message}. ${HOW_TO_AUTHENTICATE}` }, meta: meta(request) });
}

/** Read-only mode (DESIGN.md §9): `X-MCP-Readonly: true` or `/mcp?read_only=1`. */
function readOnlyRequested(request: FastifyRequest): boolean {
  const header = String(request.headers['x-mcp-readonly'] ?? '').toLowerCase();
  const query = new URL(request.url, 'http://mcp.invalid').searchParams.get('read_only')?.toLowerCase();
  return ['true', '1'].includes(header) || ['true', '1'].includes(query ?? '');
}

/** A fetch that answers through `app.inject`: the v1 call stays in-process, whatever BASE_URL says. */
function injectFetch(app: FastifyInstance, caller: FastifyRequest): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init.headers);
    let payload: string | Buffer | undefined;
    if (init.body instanceof FormData) {
      const encoded = new Response(init.body);
      headers.set('content-type', encoded.headers.get('content-type') ?? 'multipart/form-data');
      payload = Buffer.from(await encoded.arrayBuffer());
    } else if (typeof init.body === 'string') {
      payload = init.body;
    }
    const agent = caller.headers['user-agent'];
    headers.set('user-agent', `punchlist-mcp${agent ? ` (${agent.slice(0, 300)})` : ''}`);
    if (!headers.has('x-request-id')) headers.set('x-request-id', caller.id);
    const response = await app.inject({
      method: (init.method ?? 'GET') as 'GET',
      url: url.pathname + url.search,
      headers: Object.fromEntries(headers),
      payload,
      remoteAddress: caller.ip,
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : String(value));
    }
    const empty = response.statusCode === 204 || response.statusCode === 304;
    return new Response(empty ? null : new Uint8Array(response.rawPayload), { status: response.statusCode, headers: responseHeaders });
  };
}

function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(request.url, `http://${request.host || 'localhost'}`), { method: request.method, headers });
}

const methodNotAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
  reply
    .code(405)
    .header('allow', 'POST')
    .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; use POST' }, id: null });

/** `operations`: the v1 operations whose tools are offered (default OPERATIONS), as buildApp serves them. */
export async function mcpPlugin(
  app: FastifyInstance,
  { config, tokens, operations }: Pick<AppContext, 'config' | 'tokens'> & { operations?: OperationRegistry },
) {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // DNS rebinding: a browser page of another origin must not reach a local MCP server. No Origin
    // (agents, CLIs) is fine; a present one must be allowed.
    const origin = request.headers.origin;
    const allowed = config.mcpAllowedOrigins ?? [new URL(config.baseUrl).origin];
    if (origin !== undefined && !allowed.includes(origin)) {
      return reply
        .code(403)
        .type('application/json; charset=utf-8')
        .send({ jsonrpc: '2.0', error: { code: -32000, message: `Origin ${origin} is not allowed (MCP_ALLOWED_ORIGINS)` }, id: null });
    }
  });
  app.post('/mcp', { bodyLimit: MCP_BODY_LIMIT }, async (request, reply) => {
    const token = bearerToken(request.headers.authorization);
    if (!token) return sendUnauthorized(request, reply, unauthorized(), config.baseUrl);
    let scopes: readonly string[];
    try {
      scopes = (await tokens.authenticate(token, request.ip)).token.scopes;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return sendUnauthorized(request, reply, err, config.baseUrl);
      throw err;
    }
    // No retries in-process: there is no network to fail, and a 429 is better reported than waited out.
    const client = createPunchlistClient({
      baseUrl: 'http://punchlist.internal',
      token,
      fetch: injectFetch(app, request),
      retries: 0,
      ...(operations ? { operations } : {}),
    });
    const server = createMcpServer({ client, scopes, readOnly: readOnlyRequested(request), operations });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
      reply.code(response.status);
      response.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name)) reply.header(name, value);
      });
      return reply.send(response.body ? Buffer.from(await response.arrayBuffer()) : null);
    } finally {
      await server.close();
    }
  });
  app.get('/mcp', methodNotAllowed);
  app.delete('/mcp', methodNotAllowed);
}
