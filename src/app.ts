import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { apiPlugin } from './api/api-plugin.js';
import { decorateApiRequests } from './api/request-state.js';
import type { OperationRegistry } from './api/v1/define-operation.js';
import type { AppContext } from './composition/context.js';
import { clientErrorHandler, expectationFailed, LOG_REDACT_PATHS, requestForLog } from './http-guards.js';
import { mcpPlugin } from './mcp/http.js';
import { healthRoutes } from './health.js';
import { lazyChildLogger } from './lazy-child-logger.js';
import { registerMetrics } from './metrics/metrics.routes.js';
import { oauthEndpoints } from './oauth/oauth-endpoints.js';
import { removeUploadFolder } from './http/upload-temp.js';
import { webPlugin } from './web/web-plugin.js';

/** Builds the Fastify instance with every route; never listens itself. */
export interface BuildAppOptions {
  logger?: FastifyServerOptions['logger'];
  /** The v1 operations served, documented and offered as MCP tools (default OPERATIONS); tests add throwaway ones. */
  operations?: OperationRegistry;
}

/** TRUST_PROXY as Fastify takes it: a hop count as proxy-addr's "trust the first n hops" function. */
function trustProxyOption(trusted: AppContext['config']['trustProxy']) {
  return typeof trusted === 'number' ? (_address: string, hop: number) => hop < trusted : trusted;
}

export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}) {
  const { timeouts } = ctx.config;
  const logDefaults = { level: ctx.config.logLevel, redact: LOG_REDACT_PATHS, serializers: { req: requestForLog } };
  // LOG_FORMAT=pretty (the default on a terminal): one readable line per event, written by pino-pretty in
  // pino's transport thread; otherwise one JSON line per event.
  const pretty = { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname', singleLine: true } } };
  const app = Fastify({
    // A caller's logger options (tests: level, stream) keep the redaction underneath.
    logger:
      options.logger === undefined
        ? { ...logDefaults, ...(ctx.config.logFormat === 'pretty' && pretty) }
        : options.logger && typeof options.logger === 'object'
          ? { ...logDefaults, ...options.logger }
          : options.logger,
    genReqId: () => randomUUID(),
    childLoggerFactory: lazyChildLogger,
    trustProxy: trustProxyOption(ctx.config.trustProxy),
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
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false, verbose: true, strict: false } },
    // Headers over Node's limit, timeouts and malformed HTTP never reach Fastify: the envelope from the socket.
    clientErrorHandler,
  });
  app.server.on('checkExpectation', expectationFailed);
  decorateApiRequests(app);

  // Before the route modules: its hook counts the requests of every route.
  if (ctx.metrics) registerMetrics(app, ctx.metrics, { token: ctx.config.metricsToken });
  // Cookies (request.cookies, reply.setCookie) for the web and for the downloads that accept its session.
  await app.register(fastifyCookie);
  // Every module receives what it uses at registration; nothing is looked up from the instance or a request.
  await app.register(healthRoutes, { db: ctx.db, blobs: ctx.blobs });
  await app.register(apiPlugin, { prefix: '/api', ctx, operations: options.operations });
  await app.register(mcpPlugin, { config: ctx.config, tokens: ctx.tokens, operations: options.operations });
  // OAuth 2.1 (docs/design.md §12): metadata, registration, token and revocation; the consent page is in the web plugin.
  await app.register(oauthEndpoints, { oauth: ctx.oauth, urls: ctx.config, limits: ctx.oauthRateLimits });
  await app.register(webPlugin, { ctx });
  app.addHook('onClose', removeUploadFolder);
  return app;
}
