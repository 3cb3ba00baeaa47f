import type { CallInput, Operation } from '../api/v1/define-operation.js';
import { decodeImages, Images } from '../api/v1/operations/tool-inputs.js';

/**
 * An MCP tool's input is its operation's: the query parameters of a read, the fields of a write (and
 * `images`, in base64, for the files of an upload), under the tool's names where the definition renames
 * them (`id` → `item_id`), without the values it fixes. Nothing is written twice: a new field of the
 * operation is a new argument of the tool.
 */

type Tool = NonNullable<Operation['mcp']>;

/** The tool's input schema (JSON Schema; server.ts lists it without this codebase's private keywords). */
export function toolInputSchema(op: Operation, tool: Tool) {
  const source = op.body === 'none' ? op.query : op.fields;
  const nameOf = (name: string) => tool.rename?.[name]?.name ?? name;
  const taken = Object.entries(source?.properties ?? {}).filter(([name]) => !(tool.fixed && name in tool.fixed));
  const properties: Record<string, unknown> = {};
  for (const [name, schema] of taken) {
    const description = tool.rename?.[name]?.description;
    properties[nameOf(name)] = description ? { ...schema, description } : schema;
  }
  const takenNames = new Set(taken.map(([name]) => name));
  const required = (source?.required ?? []).filter((name) => takenNames.has(name)).map(nameOf);
  if (op.body === 'multipart') {
    properties.images = Images;
    required.push('images');
  }
  return { type: 'object', properties, required };
}

/** The tool's arguments as the operation's request: names back to v1's, the fixed values, images decoded (may throw ToolInputError). */
export function toolRequest(op: Operation, tool: Tool, args: Record<string, unknown>): CallInput<any, any, any> {
  const inputName = new Map(Object.entries(tool.rename ?? {}).map(([name, argument]) => [argument!.name, name]));
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (op.body === 'multipart' && name === 'images') continue;
    input[inputName.get(name) ?? name] = value;
  }
  Object.assign(input, tool.fixed);
  if (op.body === 'multipart') return { fields: input, files: decodeImages(args.images) };
  return op.body === 'none' ? { query: input } : { fields: input };
}
