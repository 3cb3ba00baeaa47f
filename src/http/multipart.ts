import { invalidField, schemaFieldError } from '../i18n/reasons.js';
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type { TObject } from 'typebox';
import { ApiError, type FieldReason, unknownFields, validationError } from '../shared/errors.js';
import { newUploadDir } from './upload-temp.js';
import { hashMultipartRequest, type MultipartFileDigest } from '../features/idempotency/idempotency.service.js';

export const UPLOAD_LIMITS = { maxFiles: 10, maxFileBytes: 20 * 1024 * 1024 };

export const MULTIPART_OPTIONS = {
  throwFileSizeLimit: false,
  limits: {
    fileSize: UPLOAD_LIMITS.maxFileBytes,
    files: UPLOAD_LIMITS.maxFiles,
    fields: 20,
    fieldSize: 1024,
    parts: 40,
    headerPairs: 100,
  },
};

const FILE_FIELDS = new Set(['attachments[]', 'attachments']);

export interface UploadForm {
  fields: Record<string, string>;
  /** Every text field in the order sent, repeats included (a multiple select sends one per choice). */
  entries: [string, string][];
  files: IncomingImage[];
  /** What "the same request" means for idempotency: the fields and each file's SHA-256. */
  fingerprint: string;
  cleanup(): Promise<void>;
}

/** An uploaded file waiting on local disk. */
export interface IncomingImage {
  originalName: string;
  path: string;
  size: number;
  /** Over the byte limit: the upload was cut short. */
  oversized: boolean;
}

/**
 * Streams a multipart upload to temp files (never buffering a whole request), keeping the
 * form fields. Files over the size limit are kept as `oversized` so that the caller can refuse
 * them after the access checks, as the check order asks.
 */
export async function readUploadForm(
  request: FastifyRequest,
  schema: TObject | undefined,
  options: { filesRequired?: boolean; fileFields?: ReadonlySet<string> } = {},
): Promise<UploadForm> {
  const fileFields = options.fileFields ?? FILE_FIELDS;
  if (!request.isMultipart()) {
    throw new ApiError(415, 'unsupported_media_type', 'Content-Type must be multipart/form-data for uploads');
  }
  const temp = await newUploadDir();
  const cleanup = temp.cleanup;
  const fields: Record<string, string> = {};
  const entries: [string, string][] = [];
  const files: IncomingImage[] = [];
  const digests: MultipartFileDigest[] = [];
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        // A file part whose name the parser could not read arrives as a field: refused, never dropped.
        if (fileFields.has(part.fieldname)) throw invalidField(part.fieldname, options.fileFields ? 'reason.files' : 'reason.imageFiles');
        if (typeof part.value !== 'string') throw invalidField(part.fieldname, 'reason.textField');
        if (part.valueTruncated) throw invalidField(part.fieldname, 'reason.tooLong');
        if (!knownField(schema, part.fieldname)) throw unknownFields([part.fieldname]);
        fields[part.fieldname] = part.value;
        entries.push([part.fieldname, part.value]);
        continue;
      }
      if (!fileFields.has(part.fieldname)) throw unknownFields([part.fieldname]);
      const { path, stream } = temp.create(String(files.length));
      const hash = createHash('sha256');
      let size = 0;
      part.file.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        size += chunk.length;
      });
      await pipeline(part.file, stream);
      // A part with a non-text Content-Type and no filename comes as a file without a name.
      const filename = part.filename ?? '';
      files.push({ originalName: filename, path, size, oversized: part.file.truncated });
      digests.push({ field: part.fieldname, filename, sha256: hash.digest('hex') });
    }
  } catch (err) {
    await cleanup();
    if (err instanceof ApiError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_FILES_LIMIT') throw invalidField('attachments[]', 'reason.atMostFiles', { max: UPLOAD_LIMITS.maxFiles });
    throw invalidField('body', 'reason.multipart');
  }
  try {
    checkFields(fields, files, schema, options.filesRequired ?? true);
  } catch (err) {
    await cleanup();
    throw err;
  }
  return { fields, entries, files, fingerprint: hashMultipartRequest(entries, digests), cleanup };
}

/** A field the schema names, or whose name matches one of its `patternProperties` (a form's `field_<id>` controls). */
function knownField(schema: TObject | undefined, name: string): boolean {
  if (!schema) return false;
  if (schema.properties[name]) return true;
  const patterns = Object.keys((schema as { patternProperties?: Record<string, unknown> }).patternProperties ?? {});
  return patterns.some((pattern) => new RegExp(pattern).test(name));
}

/** The text fields against the operation's schema (required, pattern), and 1 file at least: 422 before any lookup. */
function checkFields(fields: Record<string, string>, files: IncomingImage[], schema: TObject | undefined, filesRequired: boolean) {
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const value = fields[name];
    const { pattern, errorMessage, errorReason } = property as { pattern?: string; errorMessage?: string; errorReason?: FieldReason };
    if (value === undefined) {
      if (schema?.required?.includes(name)) throw invalidField(name, 'reason.required');
    } else if (pattern && !new RegExp(pattern).test(value)) {
      if (errorReason) throw validationError(name, schemaFieldError(name, errorReason).message, errorReason);
      throw errorMessage === undefined ? invalidField(name, 'reason.invalid') : validationError(name, errorMessage);
    }
  }
  if (filesRequired && files.length === 0) throw invalidField('attachments[]', 'reason.photoRequired');
}
