import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sameSecret } from '../features/sessions/sessions.service.js';
import type { Metrics } from './prometheus.js';

/** The route label of requests that matched no route: raw URLs would make one series per probe. */
const UNMATCHED_ROUTE = 'unmatched';

const isLoopback = (address: string | undefined) => address !== undefined && (address === '::1' || /^(::ffff:)?127\./.test(address));

/**
 * Loopback clients read the metrics freely. The socket's address must be loopback, and so must the
 * client's address when TRUST_PROXY makes it come from X-Forwarded-For: a reverse proxy on the same host
 * does not open the metrics to the world that way. Anyone else needs METRICS_TOKEN as a bearer token.
 */
function mayRead(request: FastifyRequest, token: string | undefined): boolean {
  if (isLoopback(request.socket.remoteAddress) && isLoopback(request.ip)) return true;
  const header = request.headers.authorization ?? '';
  return token !== undefined && header.startsWith('Bearer ') && sameSecret(header.slice('Bearer '.length), token);
}

/**
 * Counts and times every answered request, by route pattern, and serves `GET /metrics`. Called on the
 * root instance before the route modules are registered, so that its hook sees every route.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, options: { token?: string }) {
  // A callback hook, not an async one: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE);
    metrics.observeRequest(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', async (request, reply) => {
    if (!mayRead(request, options.token)) {
      return reply
        .code(403)
        .type('text/plain; charset=utf-8')
        .send('metrics are open to loopback clients; from elsewhere send Authorization: Bearer <METRICS_TOKEN>\n');
    }
    const { contentType, body } = await metrics.render();
    return reply.type(contentType).send(body);
  });
}
