import { Type } from 'typebox';
import type { ImageFile, ToolArgument } from '../define-operation.js';

/**
 * What the MCP tools share. Each tool is declared in the definition of the v1 operation behind it (its
 * `mcp` block: name, title, hints, description, and the arguments whose names differ from the
 * operation's input); src/mcp/tool-input.ts derives its input schema and request from the operation's,
 * src/mcp/server.ts lists and runs them through the typed client, so a tool's scope, validation and audit
 * record are its operation's. Arguments go to v1 as given (v1 validates them and answers 422); only
 * images are decoded here, from base64: the server never fetches a URL it is handed. The client and the
 * MCP server import the definitions: nothing here may pull in server code.
 */

export class ToolInputError extends Error {}

export const NEVER_WORK_AROUND =
  'If it fails with 401, 403, 404 or 422, report the error (code, message, request_id) to the user and stop: do not retry ' +
  'with guessed ids, other tools or altered input.';

/** The tool argument of an item id (`id` or `item_id` in v1). */
export const ItemIdArgument: ToolArgument = {
  name: 'item_id',
  description: 'The exact item id (from get_project_tree or a search_project hit)',
};
/** The tool argument of a project id (`id` in v1). */
export const ProjectIdArgument: ToolArgument = { name: 'project_id', description: 'The project id (from list_projects)' };

/** The `images` argument of an upload tool, in place of the operation's files. */
export const Images = Type.Array(
  Type.Object({
    filename: Type.String({ description: 'File name with its extension, e.g. "tag.jpg"' }),
    content_base64: Type.String({ description: 'The image bytes, base64-encoded (PNG, JPEG, GIF or WebP). Never a URL.' }),
  }),
  { minItems: 1, maxItems: 10, description: '1–10 images; each is stored as WebP. Images under 16×16 pixels are refused.' },
);

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Base64 (or a data: URL's base64 part) to bytes; anything else, URLs included, is refused here. */
export function decodeImages(images: unknown): ImageFile[] {
  if (!Array.isArray(images) || images.length === 0) throw new ToolInputError('images: give 1 to 10 images as {filename, content_base64}');
  return images.map((image: unknown, i) => {
    const { filename, content_base64: content } = (image ?? {}) as { filename?: unknown; content_base64?: unknown };
    if (typeof filename !== 'string' || !filename.trim()) throw new ToolInputError(`images[${i}].filename: a file name is required`);
    if (typeof content !== 'string') throw new ToolInputError(`images[${i}].content_base64: the base64 bytes are required`);
    const base64 = content.replace(/^data:[^,;]*;base64,/, '').replace(/\s+/g, '');
    if (/^[a-z][a-z0-9+.-]*:/i.test(base64)) {
      throw new ToolInputError(`images[${i}].content_base64: URLs are never fetched; send the image bytes as base64`);
    }
    if (!BASE64.test(base64)) throw new ToolInputError(`images[${i}].content_base64: not valid base64`);
    return { name: filename, bytes: Buffer.from(base64, 'base64') };
  });
}
