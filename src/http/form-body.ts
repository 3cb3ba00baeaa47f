import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';

// formbody types its parser's result as a plain record; `formOf` and the OAuth endpoints read it back as what it is.
const parseForm = (body: string) => new URLSearchParams(body) as unknown as Record<string, unknown>;

/**
 * `application/x-www-form-urlencoded` bodies through @fastify/formbody, parsed into URLSearchParams (repeated
 * fields such as checkboxes keep every value, in order; `get` answers the first one), at most `bodyLimit` bytes.
 */
export async function urlEncodedForms(app: FastifyInstance, bodyLimit: number) {
  await app.register(formbody, { bodyLimit, parser: parseForm });
}
