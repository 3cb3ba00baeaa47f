import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { apiPlugin } from './api/plugin.js';
import type { AppContext } from './context.js';
import { mcpPlugin } from './mcp/http.js';
import { healthRoutes } from './health.js';
import { webPlugin } from './web/plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}

/** 431 for headers over Node's limit: they never reach Fastify, so the envelope is written on the socket. */
function headersTooLarge(): string {
  const requestId = randomUUID();
  const body = JSON.stringify({
    ok: false,
    error: { code: 'headers_too_large', message: 'The request line and headers exceed 16 KiB' },
    meta: { request_id: requestId, api_version: 'v1', timestamp: new Date().toISOString() },
  });
  return (
    'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n' +
    `Content-Type: application/json; charset=utf-8\r\nX-Request-Id: ${requestId}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Builds the Fastify instance with every route; never listens itself. */
export async function buildApp(ctx: AppContext, options: { logger?: FastifyServerOptions['logger'] } = {}) {
  const app = Fastify({
    logger: options.logger ?? { level: ctx.config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    genReqId: () => randomUUID(),
    trustProxy: ctx.config.trustProxy,
    bodyLimit: 1024 * 1024,
    requestTimeout: 120_000,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: true, allErrors: false, verbose: true, strict: false } },
    // Headers over Node's limit never reach Fastify: answer in the envelope from the socket.
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return socket.destroy();
      socket.end(
        err.code === 'HPE_HEADER_OVERFLOW' ? headersTooLarge() : 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
      );
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
