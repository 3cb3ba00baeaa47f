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

const HEADER_TOO_LARGE = JSON.stringify({
  ok: false,
  error: { code: 'headers_too_large', message: 'The request line and headers exceed 16 KiB' },
  meta: { request_id: null, api_version: 'v1', timestamp: null },
});

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
      const [status, body] =
        err.code === 'HPE_HEADER_OVERFLOW' ? ['431 Request Header Fields Too Large', HEADER_TOO_LARGE] : ['400 Bad Request', ''];
      socket.end(
        `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    },
  });
  app.decorate('ctx', ctx);
  app.decorateRequest('principal', null);
  app.decorateRequest('auditEntity', null);
  app.decorateRequest('errorCode', null);
  app.decorateRequest('audited', false);

  await app.register(healthRoutes);
  await app.register(apiPlugin, { prefix: '/api' });
  await app.register(mcpPlugin);
  await app.register(webPlugin);
  return app;
}
