import { type TSchema, Type } from 'typebox';
import type { ToolHints } from '../define-operation.js';
import { BodyId, QueryId } from '../schemas.js';

/** Pieces several operation definitions share. */

/** An object schema that refuses unknown properties (docs/design.md §6: an unknown field or parameter → 422). */
export const strict = <T extends Record<string, TSchema>>(properties: T) => Type.Object(properties, { additionalProperties: false });

export const ProjectIdQuery = strict({ id: QueryId('The project id') });
export const ItemIdField = BodyId('The item id');

/** MCP hints of the read tools, and of the writes that only add (docs/design.md §9). */
export const READ: ToolHints = { readOnlyHint: true };
export const ADDITIVE: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };

/**
 * A file operation's result as the typed client and the MCP tool hand it over: text files as their text
 * (UTF-8, the BOM left out), others in base64.
 */
export const DownloadedFile = Type.Object({
  filename: Type.String({ description: 'From `Content-Disposition`' }),
  content_type: Type.String({ description: 'The response `Content-Type`' }),
  encoding: Type.Enum(['utf-8', 'base64'], { description: '`utf-8` for text types, `base64` otherwise' }),
  content: Type.String({ description: 'The file: its text, or its bytes in base64' }),
});
