import { Transform } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JSON_BODY_LIMIT } from '../api/json-body.js';
import { UPLOAD_LIMITS } from '../http/multipart.js';
import type { Principal } from '../features/tokens/tokens.service.js';
import { bearerChallenge, meta } from '../api/envelope.js';
import type { OperationRegistry } from '../api/v1/define-operation.js';
import { createPunchlistClient } from '../client/index.js';
import type { AppContext } from '../composition/context.js';
import { ApiError, unauthorized } from '../shared/errors.js';
import { protectedResourceMetadataUrl } from '../oauth/metadata.js';

/**
 * MCP over streamable HTTP at /mcp, stateless (a server and transport per request, JSON responses),
 * with the same bearer tokens as v1. Tool calls run the v1 operations in-process through the typed
 * client (`app.inject`, carrying the caller's IP, user agent and request id), so scopes, validation,
 * rate limit and audit records are those of v1. The MCP exchange itself (initialize, tools/list) is
 * not a v1 call and is not audited; each tool call is.
 */

/**
 * The body limits of v1, applied once the token is known (it is checked before a byte of the body is read):
 * v1's JSON limit, or, for a token that may upload images (`items:materials.write`), v1's upload limit in
 * base64 (10 files of 20 MiB, 4/3 larger as base64) plus the JSON-RPC around them.
 */
const MCP_JSON_BODY_LIMIT = JSON_BODY_LIMIT;
const MCP_UPLOAD_BODY_LIMIT = Math.ceil((UPLOAD_LIMITS.maxFiles * UPLOAD_LIMITS.maxFileBytes * 4) / 3) + JSON_BODY_LIMIT;

/** The body limit of a caller's token. */
function bodyLimitOf(principal: Principal): number {
  return principal.token.scopes.includes('items:materials.write') ? MCP_UPLOAD_BODY_LIMIT : MCP_JSON_BODY_LIMIT;
}

const jsonRpcError = (reply: FastifyReply, status: number, code: number, message: string) =>
  reply.code(status).type('application/json; charset=utf-8').send({ jsonrpc: '2.0', error: { code, message }, id: null });

/** Errors before the MCP exchange (body too large, not JSON) as JSON-RPC errors, never the web's HTML. */
function mcpErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
    return jsonRpcError(reply, 413, -32600, error.message);
  }
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error instanceof SyntaxError) {
    return jsonRpcError(reply, 400, -32700, 'Parse error: the body is not valid JSON');
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return jsonRpcError(reply, 415, -32600, 'Send the JSON-RPC message as application/json');
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return jsonRpcError(reply, status, -32600, 'Invalid request');
  request.log.error({ err: error }, 'MCP request failed');
  return jsonRpcError(reply, 500, -32603, 'Internal error');
}

/** Counts the body's bytes as they arrive: a chunked body over the limit stops there (413). */
function limitedBody(payload: NodeJS.ReadableStream, limit: number): Transform {
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > limit) return done(bodyTooLarge(limit));
      done(null, chunk);
    },
  });
  payload.on('error', (err) => counter.destroy(err));
  return payload.pipe(counter);
}

function bodyTooLarge(limit: number): FastifyError {
  return Object.assign(new Error(`Request body is larger than ${limit} bytes, the limit for this token`), {
    code: 'FST_ERR_CTP_BODY_TOO_LARGE',
    statusCode: 413,
    name: 'FastifyError',
  });
}

/**
 * The MCP SDK and the tools' server load at the first MCP request, not with the server: ~10 MB of the main
 * thread that most nodes never use (docs/performance.md, "Issue 31: server RSS"). The first request waits for
 * them once (a few hundred ms).
 */
let mcpModules: Promise<
  [typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), typeof import('./server.js')]
> | null = null;
const loadMcp = () =>
  (mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), import('./server.js')]));

const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

function bearerToken(header: string | undefined): string | null {
  if (!header || !/^bearer(?:\s|$)/i.test(header)) return null;
  return header.slice('bearer'.length).trim() || null;
}

/**
 * What the 401 body adds: a generic client follows the challenge's `resource_metadata` (RFC 9728) to the
 * authorization server (docs/design.md §12); a person reading the body learns both ways in.
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

/** Read-only mode (docs/design.md §9): `X-MCP-Readonly: true` or `/mcp?read_only=1`. */
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
  app.setErrorHandler(mcpErrorHandler);
  const principals = new WeakMap<FastifyRequest, { principal: Principal; token: string }>();
  /** As v1: the token is checked before a byte of the body is read, so nobody unknown makes it read 50 MiB. */
  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const token = bearerToken(request.headers.authorization);
    if (!token) return sendUnauthorized(request, reply, unauthorized(), config.baseUrl);
    try {
      principals.set(request, { principal: await tokens.authenticate(token, request.ip), token });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return sendUnauthorized(request, reply, err, config.baseUrl);
      throw err;
    }
  };
  const limitBody = async (request: FastifyRequest, _reply: FastifyReply, payload: NodeJS.ReadableStream) => {
    const limit = bodyLimitOf(principals.get(request)!.principal);
    if (Number(request.headers['content-length'] ?? 0) > limit) throw bodyTooLarge(limit);
    return limitedBody(payload, limit);
  };
  app.post('/mcp', { bodyLimit: MCP_UPLOAD_BODY_LIMIT, onRequest: authenticate, preParsing: limitBody }, async (request, reply) => {
    const { principal, token } = principals.get(request)!;
    const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }] = await loadMcp();
    const scopes: readonly string[] = principal.token.scopes;
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
  // Not a page of the web interface: a preflight or a probe gets the methods, never a sign-in redirect.
  app.options('/mcp', async (_request, reply) => reply.code(204).header('allow', 'POST, OPTIONS').send());
}
