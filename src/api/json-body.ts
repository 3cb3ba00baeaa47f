import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

export const JSON_BODY_LIMIT = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

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
      return done(new ApiError(422, 'validation_error', 'body: must be a JSON object', [{ field: 'body', message: 'must be a JSON object' }]));
    }
    done(null, value);
  });
}
