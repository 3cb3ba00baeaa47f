import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { apiPlugin } from './api/plugin.js';
import type { AppContext } from './context.js';
import { redactSecrets } from './domain/redact.js';
import { mcpPlugin } from './mcp/http.js';
import { healthRoutes } from './health.js';
import { webPlugin } from './web/plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}

/**
 * Requests that Node's HTTP parser refuses or times out never reach Fastify: the envelope is written on
 * the socket, with a fresh request id, and the connection closed. Not audited (no request existed).
 */
const SOCKET_ERRORS: Record<string, [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'headers_too_large', 'The request line and headers exceed 16 KiB'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request_timeout', 'The request did not arrive in time'],
};
const MALFORMED: [number, string, string, string] = [400, 'Bad Request', 'bad_request', 'The request is not well-formed HTTP/1.1'];

function socketErrorResponse(code: string | undefined): string {
  const [status, reason, errorCode, message] = (code && SOCKET_ERRORS[code]) || MALFORMED;
  const requestId = randomUUID();
  const body = JSON.stringify({
    ok: false,
    error: { code: errorCode, message },
    meta: { request_id: requestId, api_version: 'v1', timestamp: new Date().toISOString() },
  });
  return (
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nX-Request-Id: ${requestId}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Fastify's request serializer for the log, with secrets a client put in the URL removed. */
function requestForLog(request: FastifyRequest) {
  return { method: request.method, url: redactSecrets(request.url), host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort };
}

/** Builds the Fastify instance with every route; never listens itself. */
export async function buildApp(ctx: AppContext, options: { logger?: FastifyServerOptions['logger'] } = {}) {
  const { timeouts } = ctx.config;
  const logDefaults = { level: ctx.config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'], serializers: { req: requestForLog } };
  const app = Fastify({
    // A caller's logger options (tests: level, stream) keep the redaction underneath.
    logger: options.logger === undefined ? logDefaults : options.logger && typeof options.logger === 'object' ? { ...logDefaults, ...options.logger } : options.logger,
    genReqId: () => randomUUID(),
    trustProxy: ctx.config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Slow clients (docs/operations.md, "Timeouts"): the headers, then the whole request, must arrive in
    // time; Node checks every connection once per interval, so the interval bounds how late it notices.
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.connectionMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      headersTimeout: timeouts.headersMs,
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(timeouts.headersMs / 4))),
    },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: true, allErrors: false, verbose: true, strict: false } },
    // Headers over Node's limit, timeouts and malformed HTTP never reach Fastify: the envelope from the socket.
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
      socket.end(socketErrorResponse(err.code));
      // A client that stops reading must not keep the socket open after the answer.
      socket.setTimeout(5000, () => socket.destroy());
    },
  });
  app.decorate('ctx', ctx);
  app.decorateRequest('principal', null);
  app.decorateRequest('sessionUser', null);
  app.decorateRequest('auditEntity', null);
  app.decorateRequest('errorCode', null);
  app.decorateRequest('audited', false);

  await app.register(healthRoutes);
  await app.register(apiPlugin, { prefix: '/api' });
  await app.register(mcpPlugin);
  await app.register(webPlugin);
  return app;
}
