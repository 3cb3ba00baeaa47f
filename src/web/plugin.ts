import type { FastifyInstance } from 'fastify';

/** The web interface: server-rendered pages over the same services and access policy as the API. */
export async function webPlugin(_app: FastifyInstance) {
  // Pages are added here.
}
