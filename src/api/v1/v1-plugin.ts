import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../composition/context.js';
import { ApiError } from '../../shared/errors.js';
import { bearerAuth } from './bearer-auth.js';
import { corsHooks } from './cors.js';
import { idempotencyHooks } from '../../http/idempotency.js';
import { openApiDocs } from './openapi.js';
import { registerOperations } from './operation-route.js';
import { OPERATIONS, type OperationRegistry, V1_BASE_PATH } from './operations.js';
import { responseHeaders } from './response-headers.js';
import { securityHeaders } from './security-headers.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export interface V1Options {
  /** The operations to serve and document: OPERATIONS (operations.ts); a test may serve another list. */
  operations?: OperationRegistry;
}

interface V1PluginOptions extends V1Options {
  ctx: AppContext;
}

/** External API v1: CORS, bearer auth + scope per route, the operations (operations.ts), and 405 for known paths. */
export async function v1Plugin(instance: FastifyInstance, { ctx, ...options }: V1PluginOptions) {
  const operations = options.operations ?? OPERATIONS;
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    // The Swagger UI pages (hidden from the document) stay out: a nested prefix, and trailing-slash twins.
    if (route.config?.allow || route.schema?.hide) return;
    const methods = methodsByPath.get(route.routePath) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    methodsByPath.set(route.routePath, methods);
  });
  // CORS headers on every response, and preflights answered before the token is looked at.
  corsHooks(app, ctx.config.corsOrigins);
  // Token, then its rate limit, then the scope (bearer-auth.ts); the headers follow on every operation.
  const limiter = ctx.rateLimiter;
  app.addHook('onRequest', bearerAuth(ctx.tokens, limiter));
  responseHeaders(app, limiter);
  securityHeaders(app, ctx.config.baseUrl, V1_BASE_PATH);
  // Idempotency-Key on POST/PATCH/PUT: after auth and scope, before validation and the handler.
  idempotencyHooks(app, ctx.idempotency);

  // Public (no scope): /openapi.json and /docs; registered first so it sees every route.
  await openApiDocs(app, operations, ctx.config.baseUrl);
  // The services the handlers use, handed over here (no service locator in the handlers).
  const { projects, items, itemWrites, attachments, comments, answers, events, reports, cacheVersions, offloadedReads, plans } = ctx;
  const services = {
    projects,
    items,
    itemWrites,
    attachments,
    comments,
    answers,
    events,
    reports,
    cacheVersions,
    offloadedReads,
    plans,
  };
  await registerOperations(app, operations, { services, cache: ctx.responseCache, audit: ctx.audit });

  for (const [path, methods] of methodsByPath) {
    const allow = METHODS.filter((m) => methods.has(m)).join(', ');
    app.route({
      method: METHODS.filter((m) => !methods.has(m)),
      url: path,
      config: { allow },
      handler: async () => {
        throw new ApiError(405, 'method_not_allowed', `Method not allowed; this path accepts ${allow}`, undefined, { allow });
      },
    });
  }
}
