import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Server } from 'node:http';
import type { Scope } from '../domain/scopes.js';

/** One route of /api/ as Fastify registered it. */
export interface RegisteredRoute {
  method: string;
  /** The full path, prefix included (`/api/external/v1/items/get.php`). */
  url: string;
  /** The scope the route requires; null for public routes (OpenAPI document, docs) and 405 answers. */
  scope: Scope | null;
  /** Set on the routes that only answer 405: the methods the path does accept. */
  allow: string | null;
}

// Keyed by the HTTP server, which every encapsulated Fastify context of one application shares.
const registries = new WeakMap<Server, RegisteredRoute[]>();

/**
 * Records every route registered from here on (this context and its children): the route table the
 * scope matrix and the fuzz tests walk, read from what the server really serves rather than a list
 * kept by hand that could drift from it.
 */
export function recordRoutes(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  registries.set(app.server, routes);
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat()) {
      routes.push({ method, url: route.url, scope: route.config?.scope ?? null, allow: route.config?.allow ?? null });
    }
  });
}

/** The routes of /api/ served by `app` (empty when none were recorded). */
export function registeredRoutes(app: { server: Server }): readonly RegisteredRoute[] {
  return registries.get(app.server) ?? [];
}
