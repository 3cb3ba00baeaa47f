import { type TSchema, Type } from 'typebox';
import type { ToolHints } from '../define-operation.js';
import { BodyId, QueryId } from '../schemas.js';

/** Pieces several operation definitions share. */

/** An object schema that refuses unknown properties (DESIGN.md §6: an unknown field or parameter → 422). */
export const strict = <T extends Record<string, TSchema>>(properties: T) => Type.Object(properties, { additionalProperties: false });

export const ProjectIdQuery = strict({ id: QueryId('The project id') });
export const ItemIdField = BodyId('The item id');

/** MCP hints of the read tools, and of the writes that only add (DESIGN.md §9). */
export const READ: ToolHints = { readOnlyHint: true };
export const ADDITIVE: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };
