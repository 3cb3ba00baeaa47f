import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../composition/context.js';
import { auditOnResponse } from './audit-hook.js';
import { filesRoutes } from './files.routes.js';
import { apiErrorHandler, apiNotFoundHandler } from './envelope.js';
import { strictJsonBodies } from './json-body.js';
import { recordRoutes } from './route-registry.js';
import { type V1Options, v1Plugin } from './v1/v1-plugin.js';
import './request-state.js';

/** Everything under /api/: the envelope, the X-Request-Id header, the audit record, then v1. */
export async function apiPlugin(app: FastifyInstance, { ctx, ...options }: { ctx: AppContext } & V1Options) {
  recordRoutes(app);
  strictJsonBodies(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', auditOnResponse(ctx.audit));
  // In-flight requests are done when onClose runs: their queued audit records are written before close() returns.
  app.addHook('onClose', () => ctx.audit.flush());
  app.setErrorHandler(apiErrorHandler);
  app.setNotFoundHandler(apiNotFoundHandler);
  await app.register(v1Plugin, { prefix: '/external/v1', ctx, operations: options.operations });
  await app.register(filesRoutes, ctx);
}
