import { Type, type TSchema } from 'typebox';
import { ItemStatus, Priority } from '../api/v1/schemas.js';
import { EVENT_TYPES } from '../domain/values.js';
import { DocumentLinksInput } from '../api/v1/write-schemas.js';
import { type Operation, OPERATIONS, type OperationId, type ToolHints } from '../api/v1/operations.js';
import type { ImageFile, PunchlistClient } from '../client/index.js';
import type { Scope } from '../domain/scopes.js';

/**
 * The MCP tools (names fixed by DESIGN.md §9). Each calls one v1 operation through the typed client,
 * so its scope, validation and audit record are that operation's; a tool is listed only when the
 * token has that operation's scope. Arguments go to v1 as given (v1 validates them and answers 422);
 * only images are decoded here, from base64: the server never fetches a URL it is handed.
 */
export interface ToolDefinition {
  /** The v1 operation behind the tool: its scope decides whether the tool is listed; its definition gives the tool's name, title, annotations and output schema. */
  operation: OperationId;
  description: string;
  inputSchema: TSchema;
  run(client: PunchlistClient, args: Record<string, any>): Promise<unknown>;
}

export class ToolInputError extends Error {}

const NEVER_WORK_AROUND =
  'If it fails with 401, 403, 404 or 422, report the error (code, message, request_id) to the user and stop: do not retry ' +
  'with guessed ids, other tools or altered input.';

const ItemId = Type.Integer({ minimum: 1, description: 'The exact item id (from get_project_tree or a search_project hit)' });
const ProjectId = Type.Integer({ minimum: 1, description: 'The project id (from list_projects)' });
const Limit = Type.Integer({ minimum: 1, maximum: 200, description: 'Page size, 1–200 (default 50)' });
const Offset = Type.Integer({ minimum: 0, description: 'Hits to skip (default 0)' });

const Images = Type.Array(
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

export const TOOLS: ToolDefinition[] = [
  {
    operation: 'me',
    description:
      'Call this first. Confirms that the Punchlist API token works and returns the user it acts as (id, name, role), ' +
      'the token (label, expiry) and its scopes. Every action is done as this user, with exactly their rights.',
    inputSchema: Type.Object({}),
    run: (client) => client.me(),
  },
  {
    operation: 'listProjects',
    description:
      'Lists the projects the user can see, by id, with progress and counters. archived: "false" (default, active ' +
      'only), "true" (archived only) or "all".',
    inputSchema: Type.Object({
      archived: Type.Optional(Type.Enum(['false', 'true', 'all'])),
      limit: Type.Optional(Limit),
      offset: Type.Optional(Offset),
    }),
    run: (client, args) =>
      client.listProjects({ limit: args.limit, offset: args.offset, archived: args.archived === 'all' ? 'all' : args.archived }),
  },
  {
    operation: 'getProjectTree',
    description:
      'Returns a project with its sections, checklists and item summaries (id, text, status, priority, deadline), ' +
      'limited to what the user can see. Use it to browse; to find a specific item, prefer search_project.',
    inputSchema: Type.Object({ project_id: ProjectId }),
    run: (client, args) => client.getProjectTree(args.project_id),
  },
  {
    operation: 'searchProject',
    description:
      'Finds items and what was said about them inside one project (names, item text and description, comments, ' +
      'answers, links; case-insensitive substring). This is how to locate an item: search first, then use the exact ' +
      'item_id of a hit with get_item and the write tools; never guess ids. entity_type restricts the hits (project, ' +
      'section, checklist, item, comment, answer, link); item_id alone (without q) lists everything about one item.',
    inputSchema: Type.Object(
      {
        project_id: ProjectId,
        q: Type.Optional(Type.String({ description: 'Text to find (optional when item_id is given)' })),
        entity_type: Type.Optional(Type.Enum(['project', 'section', 'checklist', 'item', 'comment', 'answer', 'link'])),
        item_id: Type.Optional(ItemId),
        limit: Type.Optional(Limit),
        offset: Type.Optional(Offset),
      },
    ),
    run: (client, args) =>
      client.searchProject(args.project_id, {
        q: args.q,
        entityType: args.entity_type,
        itemId: args.item_id,
        limit: args.limit,
        offset: args.offset,
      }),
  },
  {
    operation: 'getItem',
    description:
      'Returns the full item card: text, description (read-only), status, deadline, priority, requires_answer, ' +
      'participants, comments, answers with their review status, images, document links and status history. Read it ' +
      'before changing an item.',
    inputSchema: Type.Object({ item_id: ItemId }),
    run: (client, args) => client.getItem(args.item_id),
  },
  {
    operation: 'setItemStatus',
    description:
      'Sets the status of one item: pending, in_progress, done or blocked. Setting the current status again changes ' +
      `nothing (changed: false). ${NEVER_WORK_AROUND}`,
    inputSchema: Type.Object({ item_id: ItemId, status: ItemStatus }),
    run: (client, args) => client.setItemStatus(args.item_id, args.status),
  },
  {
    operation: 'setItemPlanning',
    description:
      'Changes the planning fields of one item; give at least one: deadline (YYYY-MM-DD, or null to clear it), ' +
      `priority (low, medium, high), requires_answer (boolean). Fields not given stay as they are. ${NEVER_WORK_AROUND}`,
    inputSchema: Type.Object(
      {
        item_id: ItemId,
        deadline: Type.Optional(Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()])),
        priority: Type.Optional(Priority),
        requires_answer: Type.Optional(Type.Boolean()),
      },
    ),
    run: (client, args) =>
      client.setItemPlanning(args.item_id, {
        ...(args.deadline !== undefined ? { deadline: args.deadline } : {}),
        ...(args.priority !== undefined ? { priority: args.priority } : {}),
        ...(args.requires_answer !== undefined ? { requires_answer: args.requires_answer } : {}),
      }),
  },
  {
    operation: 'addComment',
    description:
      'Adds a text comment to an item (plain text, 1–20 000 characters; no files or links: those go in answers). ' +
      `Comments cannot be edited or deleted. ${NEVER_WORK_AROUND}`,
    inputSchema: Type.Object({ item_id: ItemId, text: Type.String() }),
    run: (client, args) => client.addComment(args.item_id, args.text),
  },
  {
    operation: 'addAnswer',
    description:
      'Adds an answer to an item: a substantive reply (text, optional document links) that a manager reviews; it starts ' +
      `as pending. Answers cannot be edited or deleted. ${NEVER_WORK_AROUND}`,
    inputSchema: Type.Object(
      { item_id: ItemId, text: Type.String(), document_links: Type.Optional(DocumentLinksInput) },
    ),
    run: (client, args) =>
      client.addAnswer(args.item_id, { text: args.text, ...(args.document_links !== undefined ? { document_links: args.document_links } : {}) }),
  },
  {
    operation: 'replaceItemLinks',
    description:
      'Replaces the WHOLE list of document links of an item (not an append: read the item first and send every link ' +
      'to keep); an empty list removes all links. Each link: title, absolute http(s) url, optional kind (document, ' +
      `spreadsheet, presentation, folder, image, video, link). ${NEVER_WORK_AROUND}`,
    inputSchema: Type.Object({ item_id: ItemId, document_links: DocumentLinksInput }),
    run: (client, args) => client.replaceItemLinks(args.item_id, args.document_links),
  },
  {
    operation: 'attachItemImages',
    description:
      'Attaches images to an item. Give the bytes as base64 with a file name; URLs are never fetched. One refused ' +
      `image refuses the whole call and nothing is stored. ${NEVER_WORK_AROUND}`,
    inputSchema: Type.Object({ item_id: ItemId, images: Images }),
    run: (client, args) => client.attachItemImages(args.item_id, decodeImages(args.images)),
  },
  {
    operation: 'attachAnswerImages',
    description:
      'Attaches images to an answer (answer ids are in get_item). An approved or rejected answer goes back to review ' +
      `(status_reset: true). Base64 bytes with a file name; URLs are never fetched. ${NEVER_WORK_AROUND}`,
    inputSchema: Type.Object(
      { answer_id: Type.Integer({ minimum: 1, description: 'The answer id (from get_item)' }), images: Images },
    ),
    run: (client, args) => client.attachAnswerImages(args.answer_id, decodeImages(args.images)),
  },
  {
    operation: 'listEvents',
    description:
      'Lists what changed (status, planning, links, images, comments, answers, reviews, verdicts) in the projects the ' +
      'user can see, oldest first, after the event id `after` (0: from the oldest kept). Call again with the returned ' +
      '`next_after` to continue; `wait` (seconds, up to 30) waits for the next change instead of returning an empty list.',
    inputSchema: Type.Object({
      after: Type.Optional(Type.Integer({ minimum: 0, description: 'Events after this id (the previous next_after); default 0' })),
      project_id: Type.Optional(ProjectId),
      item_id: Type.Optional(ItemId),
      types: Type.Optional(Type.Array(Type.Enum([...EVENT_TYPES]), { description: 'Only these event types' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Events per page, 1–500 (default 100)' })),
      wait: Type.Optional(Type.Integer({ minimum: 0, maximum: 30, description: 'Seconds to wait for a first event (default 0)' })),
    }),
    run: (client, args) =>
      client.listEvents({ after: args.after, projectId: args.project_id, itemId: args.item_id, types: args.types, limit: args.limit, wait: args.wait }),
  },
];

export const toolScope = (tool: ToolDefinition): Scope => OPERATIONS[tool.operation].scope;

/** The tool's MCP metadata, from the definition of its v1 operation (operations.ts). */
export function toolMetadata(tool: ToolDefinition): { name: string; title: string; hints: ToolHints } {
  const op: Operation = OPERATIONS[tool.operation];
  if (!op.mcp) throw new Error(`operation ${tool.operation} defines no MCP tool`);
  return { name: op.mcp.tool, title: op.mcp.title, hints: op.mcp.hints };
}

/** The tools a token with these scopes may use; in read-only mode, only those that change nothing. */
export function toolsFor(scopes: readonly string[], readOnly = false): ToolDefinition[] {
  return TOOLS.filter((tool) => scopes.includes(toolScope(tool)) && (!readOnly || toolMetadata(tool).hints.readOnlyHint));
}

export const SERVER_INSTRUCTIONS = `Punchlist: projects → sections → checklists → items. Every tool acts as the user who owns the API token, with exactly that user's rights; each call is recorded in the service's audit log.

Recommended flow:
1. Call whoami first: it confirms the token works and shows the user and the token's scopes (tools outside those scopes are not offered).
2. To work on an item, locate it with search_project (or get_project_tree), then use the exact item_id of the hit. Never guess ids.
3. Read the item with get_item before changing it.
4. Errors 401 (token), 403 (scope or right), 404 (not found or not visible) and 422 (invalid input) are answers: report them to the user with the request_id and do not retry with workarounds. 429 means wait the given seconds.`;
