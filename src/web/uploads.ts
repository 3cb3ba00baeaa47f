import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { MULTIPART_OPTIONS, readUploadForm, type UploadForm } from '../api/v1/multipart.js';
import type { WebSession } from '../features/sessions/sessions.service.js';
import { checkCsrf } from './session.js';

/**
 * Photo forms (multipart): the same limits per file and per request as v1 uploads, with room for the
 * text fields a web form sends beside the files (an answer's text, its links).
 */
const WEB_MULTIPART_OPTIONS = {
  ...MULTIPART_OPTIONS,
  limits: { ...MULTIPART_OPTIONS.limits, fieldSize: 100_000, fields: 400, parts: 420 },
};

/** Registers multipart parsing for the routes that `routes` adds (their scope only). */
export async function uploadRoutes(app: FastifyInstance, routes: (scope: FastifyInstance) => void) {
  await app.register(async (scope) => {
    await scope.register(multipart, WEB_MULTIPART_OPTIONS);
    routes(scope);
  });
}

/**
 * Reads a photo form to temp files (v1's reader: streamed, limited), then checks its CSRF token (the
 * preHandler cannot: the body is read here). A file input left empty sends a nameless empty part: dropped.
 * The caller must `cleanup()` in every case.
 */
export async function readPhotoForm(request: FastifyRequest, session: WebSession): Promise<UploadForm> {
  const form = await readUploadForm(request);
  try {
    checkCsrf(session, form.fields._csrf);
  } catch (err) {
    await form.cleanup();
    throw err;
  }
  return { ...form, files: form.files.filter((f) => f.originalName !== '' || f.size > 0) };
}
