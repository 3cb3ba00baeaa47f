import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import { MAX_LINKS } from '../domain/values.js';
import { EMPTY_LINK_ROWS } from './form.js';
import { MULTIPART_OPTIONS, readUploadForm, type UploadForm } from '../http/multipart.js';
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

/**
 * Registers multipart parsing for the routes that `routes` adds (their scope only); `fileLimits` for forms of
 * other files than photos (a plan: one file up to PLAN_MAX_MB).
 */
export async function uploadRoutes(
  app: FastifyInstance,
  routes: (scope: FastifyInstance) => void,
  fileLimits?: { files: number; fileSize: number },
) {
  await app.register(async (scope) => {
    await scope.register(
      multipart,
      fileLimits ? { ...WEB_MULTIPART_OPTIONS, limits: { ...WEB_MULTIPART_OPTIONS.limits, ...fileLimits } } : WEB_MULTIPART_OPTIONS,
    );
    routes(scope);
  });
}

// Every field is optional: a form's own checks (CSRF, the services) say what is missing.
const text = Type.Optional(Type.String());
const guards = { _csrf: text, _key: text };
/** A photo's stage and caption (docs/design.md §22), beside the photos of every photo form. */
const photoDetails = { stage: text, caption: text };
const linkRows = Object.fromEntries(
  Array.from({ length: MAX_LINKS + EMPTY_LINK_ROWS }, (_, row) =>
    ['title', 'url', 'kind'].map((part) => [`link-${row}-${part}`, text]),
  ).flat(),
);

/** The fields each photo form may send (anything else is refused, as in v1): photos alone, or an answer with them. */
export const PHOTO_FORMS = {
  photos: Type.Object({ ...guards, ...photoDetails }),
  answer: Type.Object({ ...guards, text, ...linkRows, ...photoDetails }),
  /** "Save markup" (docs/design.md §22): the drawn picture, and its caption. */
  markup: Type.Object({ ...guards, ...photoDetails }),
  /** "Add item" (docs/design.md §14): the item's fields, its participants (a multiple select: repeated) and its photos. */
  item: Type.Object({
    ...guards,
    text,
    description: text,
    checklist: text,
    participants: Type.Optional(Type.Array(Type.String())),
    priority: text,
    deadline: text,
    requires_answer: text,
    // "Add item here" on a plan (docs/design.md §19): its place.
    plan_id: text,
    plan_x: text,
    plan_y: text,
    // The project's category and custom fields (docs/design.md §21).
    vocabulary_sent: text,
    category: text,
    // Its responsible company (docs/design.md §20).
    company: text,
    ...photoDetails,
  }),
};

// docs/design.md §21: one `field_<id>` control per custom field of the project (http/multipart.ts reads these).
Object.assign(PHOTO_FORMS.item, { patternProperties: { '^field_[1-9][0-9]{0,15}$': Type.String() } });

/** "Upload plan" and "Upload version" (docs/design.md §19): one file, `file`, and the plan's name. */
const PLAN_FORM = Type.Object({ ...guards, name: text });

/**
 * Reads a photo form to temp files (v1's reader: streamed, limited, unknown fields refused), then checks its
 * CSRF token (the preHandler cannot: the body is read here). A file input left empty sends a nameless empty
 * part: dropped. The caller must `cleanup()` in every case.
 */
export async function readPhotoForm(request: FastifyRequest, session: WebSession, form: keyof typeof PHOTO_FORMS): Promise<UploadForm> {
  return checkedForm(await readUploadForm(request, PHOTO_FORMS[form], { filesRequired: false }), session);
}

/** Reads a plan's upload form (its file in the field `file`, to a temp file), then checks its CSRF token. */
export async function readPlanForm(request: FastifyRequest, session: WebSession): Promise<UploadForm> {
  return checkedForm(await readUploadForm(request, PLAN_FORM, { filesRequired: false, fileFields: PLAN_FILE_FIELDS }), session);
}

const PLAN_FILE_FIELDS = new Set(['file']);

async function checkedForm(upload: UploadForm, session: WebSession): Promise<UploadForm> {
  try {
    checkCsrf(session, upload.fields._csrf);
  } catch (err) {
    await upload.cleanup();
    throw err;
  }
  return { ...upload, files: upload.files.filter((f) => f.originalName !== '' || f.size > 0) };
}
