import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

/** Forms are small: names, reasons, a few checkboxes. */
export const FORM_BODY_LIMIT = 64 * 1024;

/**
 * The web scope accepts `application/x-www-form-urlencoded` bodies only (what HTML forms send without
 * files), parsed with URLSearchParams; the /api scope keeps its own strict JSON parser.
 */
export function formBodies(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
    done(null, new URLSearchParams(body as string));
  });
}

/** The parsed form of a POST (empty when there was no body). */
export function formOf(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

/** A positive integer id written in decimal (route params, form values), else null. */
export function parseId(value: string | null | undefined): number | null {
  return value && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : null;
}

/** The id route parameter; a malformed id is a page that does not exist. */
export function idParam(request: FastifyRequest, name = 'id'): number {
  const id = parseId((request.params as Record<string, string | undefined>)[name]);
  if (id === null) throw new ApiError(404, 'not_found', 'This page does not exist');
  return id;
}

/** Every id of a repeated form field, ignoring malformed values. */
export function idsOf(form: URLSearchParams, name: string): number[] {
  return form
    .getAll(name)
    .map(parseId)
    .filter((id): id is number => id !== null);
}
