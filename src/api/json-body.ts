import type { FastifyInstance } from 'fastify';
import { ApiError } from '../shared/errors.js';

export const JSON_BODY_LIMIT = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The API's own bodies nest 3 levels (document_links[i].url). Deeper input is refused before anything
 * walks it recursively (validation, the idempotency fingerprint), which a few hundred KiB of brackets
 * would otherwise drive into a stack overflow.
 */
const JSON_MAX_DEPTH = 32;

function nestedDeeperThan(root: object, max: number): boolean {
  const pending: [unknown, number][] = [[root, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, depth] = next;
    if (depth > max) return true;
    for (const child of Object.values(value as object)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return false;
}

/** application/json only: valid UTF-8, valid JSON, a JSON object. Anything else never reaches a handler. */
export function strictJsonBodies(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: JSON_BODY_LIMIT }, (_request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(new ApiError(422, 'validation_error', 'body: is not valid UTF-8', [{ field: 'body', message: 'is not valid UTF-8' }]));
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(new ApiError(422, 'validation_error', 'body: is not valid JSON', [{ field: 'body', message: 'is not valid JSON' }]));
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return done(
        new ApiError(422, 'validation_error', 'body: must be a JSON object', [{ field: 'body', message: 'must be a JSON object' }]),
      );
    }
    if (nestedDeeperThan(value, JSON_MAX_DEPTH)) {
      const message = `is nested more than ${JSON_MAX_DEPTH} levels deep`;
      return done(new ApiError(422, 'validation_error', `body: ${message}`, [{ field: 'body', message }]));
    }
    done(null, value);
  });
}
