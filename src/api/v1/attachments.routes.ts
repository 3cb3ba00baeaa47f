import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import { validationError } from '../../errors.js';
import { Envelope } from '../envelope.js';
import { auditedWrite } from './audited-write.js';
import { beginIdempotentRequest } from './idempotency.js';
import { setAuditEntity } from '../request-state.js';
import { MULTIPART_OPTIONS, readUploadForm, type UploadForm } from './multipart.js';
import { Attachment, ID_PATTERN } from './schemas.js';
import type { V1App } from './plugin.js';

const ID = new RegExp(ID_PATTERN);

/** Field checks of an upload (422 before any lookup): the id field and 1–10 files. */
function checkedForm(form: UploadForm, idField: string): number {
  const id = form.fields[idField];
  if (id === undefined) throw validationError(idField, 'is required');
  if (!ID.test(id)) throw validationError(idField, 'must be a positive integer id');
  if (form.files.length === 0) throw validationError('attachments[]', 'at least one image file is required');
  return Number(id);
}

export async function attachmentsRoutes(app: V1App) {
  const { attachments } = app.ctx;

  // Multipart is parsed only here: every other write stays strictly application/json.
  await app.register(async (uploads: V1App) => {
    await uploads.register(multipart, MULTIPART_OPTIONS);

    uploads.post(
      '/items/attachments.php',
      {
        config: { scope: 'items:materials.write' },
        schema: {
          summary: 'Attach images to an item (multipart: item_id, attachments[]); stored as WebP',
          consumes: ['multipart/form-data'],
          response: { 201: Envelope(Type.Object({ attachments: Type.Array(Attachment) })) },
        },
      },
      async (request, reply) => {
        const form = await readUploadForm(request);
        try {
          const itemId = checkedForm(form, 'item_id');
          setAuditEntity(request, 'item', itemId);
          if (!(await beginIdempotentRequest(request, reply, form.fingerprint))) return reply;
          return await auditedWrite(request, reply, 201, (audit) => attachments.attachToItem(request.principal!.user, itemId, form.files, audit));
        } finally {
          await form.cleanup();
        }
      },
    );

    uploads.post(
      '/answers/attachments.php',
      {
        config: { scope: 'items:materials.write' },
        schema: {
          summary: 'Attach images to an answer (multipart: answer_id, attachments[]); an approved or rejected answer returns to pending',
          consumes: ['multipart/form-data'],
          response: {
            201: Envelope(
              Type.Object({ attachments: Type.Array(Attachment), status_reset: Type.Boolean(), answer_status: Type.String() }),
            ),
          },
        },
      },
      async (request, reply) => {
        const form = await readUploadForm(request);
        try {
          const answerId = checkedForm(form, 'answer_id');
          setAuditEntity(request, 'answer', answerId);
          if (!(await beginIdempotentRequest(request, reply, form.fingerprint))) return reply;
          return await auditedWrite(request, reply, 201, (audit) =>
            attachments.attachToAnswer(request.principal!.user, answerId, form.files, audit),
          );
        } finally {
          await form.cleanup();
        }
      },
    );
  });
}
