import { Type, type TSchema, type TString, type TUnsafe } from 'typebox';
import { ANSWER_STATUSES, EVENT_TYPES, LINK_KINDS, MAX_CAPTION_LENGTH, PHOTO_STAGES, SEARCH_ENTITY_TYPES } from '../../domain/values.js';
import { BALL_IN_COURT } from '../../domain/ball-in-court.js';
import { ItemStatus, Priority } from '../../http/write-inputs.js';

/** Shapes of v1, in one place: they validate requests, strip responses and feed the OpenAPI document. */

/** A nullable string: `type: ['string', 'null']` in JSON Schema (not an anyOf union). */
export const NullableString = (options: { format?: 'date' | 'date-time' } = {}): TUnsafe<string | null> =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
const NullableInteger = (): TUnsafe<number | null> => Type.Unsafe<number | null>({ type: ['integer', 'null'] });
/** A nullable object (or any schema that cannot take a type array). */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * Query parameters arrive as text and are validated as text (no coercion: `01002` or `1e3` are refused);
 * the OpenAPI document shows them as the integers they stand for (openapi.ts reads this keyword).
 */
export const OPENAPI_TYPE = 'x-openapi-type';

/** A string schema of decimal text shown (OPENAPI_TYPE) and taken by the typed client as an integer. */
export interface IntegerText {
  readonly [OPENAPI_TYPE]: { type: 'integer' };
}
export const integerText = (schema: TString) => schema as TString & IntegerText;

const ID_PATTERN = '^[1-9][0-9]{0,15}$';
const ID_MESSAGE = 'must be a positive integer id in decimal digits, without leading zeros or signs (e.g. 1002)';

/** A positive decimal id in a query string. */
export const QueryId = (description: string) =>
  integerText(Type.String({ pattern: ID_PATTERN, errorMessage: ID_MESSAGE, description, [OPENAPI_TYPE]: { type: 'integer', minimum: 1 } }));
/** A positive id in a JSON body: a JSON integer, never a string. */
export const BodyId = (description: string) =>
  Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    errorMessage: 'must be a positive integer id (a JSON number)',
    description,
  });

export const LIMIT = { default: 50, max: 200 };
const MAX_OFFSET = 999_999_999;

export const Limit = (description = `Page size, 1–${LIMIT.max} (default ${LIMIT.default})`) =>
  integerText(
    Type.String({
      pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9]{2}|200)$',
      errorMessage: `must be an integer from 1 to ${LIMIT.max}`,
      description,
      [OPENAPI_TYPE]: { type: 'integer', minimum: 1, maximum: LIMIT.max, default: LIMIT.default },
    }),
  );
export const Offset = (description = 'Entries to skip (default 0)') =>
  integerText(
    Type.String({
      pattern: '^(?:0|[1-9][0-9]{0,8})$',
      errorMessage: `must be an integer from 0 to ${MAX_OFFSET} (the maximum offset)`,
      description,
      [OPENAPI_TYPE]: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 },
    }),
  );

// Shared with the web forms (http/write-inputs.ts); responses use them too.
export { ItemStatus, Priority };
export const AnswerStatus = Type.Enum([...ANSWER_STATUSES]);
const LinkKind = Type.Enum([...LINK_KINDS]);
const SearchEntityType = Type.Enum([...SEARCH_ENTITY_TYPES]);

const DateTime = () => Type.String({ format: 'date-time' });

const UserRef = Type.Object({ id: Type.Integer(), name: Type.String() });

export const ProjectCard = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  deadline: NullableString({ format: 'date' }),
  verdict: NullableString(),
  archived: Type.Boolean(),
  progress: Type.Object({ done: Type.Integer(), total: Type.Integer(), percent: Type.Integer() }),
  counters: Type.Object({
    sections: Type.Integer(),
    checklists: Type.Integer(),
    items: Type.Integer(),
    pending: Type.Integer(),
    in_progress: Type.Integer(),
    done: Type.Integer(),
    blocked: Type.Integer(),
  }),
  created_at: DateTime(),
  updated_at: DateTime(),
});

/** Where an item is (docs/design.md §19): a plan of its project, at fractions of the sheet from its top left. */
export const Location = Type.Object(
  {
    plan_id: Type.Integer(),
    plan_name: Type.String(),
    x: Type.Number({ minimum: 0, maximum: 1, description: 'From the left edge of the sheet (0) to the right (1)' }),
    y: Type.Number({ minimum: 0, maximum: 1, description: 'From the top edge of the sheet (0) to the bottom (1)' }),
  },
  { description: 'The item’s place on a plan; every version of the plan keeps it' },
);

/** An item's custom field values (docs/design.md §21) by the field's name, as strings: numbers as written, dates YYYY-MM-DD. */
const FieldValues = Type.Object({}, { additionalProperties: Type.String() });
/** docs/design.md §20: the company that holds an item. */
const CompanyRef = Type.Object({ id: Type.Integer(), name: Type.String() });

const BallInCourtValue = Type.Enum([...BALL_IN_COURT], {
  description: "Whose move it is: `company` (the responsible company's, or the participants'), `review` (the managers'), `none` (closed)",
});

export const ItemSummary = Type.Object({
  id: Type.Integer(),
  text: Type.String(),
  status: ItemStatus,
  priority: Priority,
  deadline: NullableString({ format: 'date' }),
  requires_answer: Type.Boolean(),
  location: Nullable(Location),
  category: NullableString(),
  fields: FieldValues,
  responsible_company: Nullable(CompanyRef),
  ball_in_court: BallInCourtValue,
});

export const ProjectTree = Type.Object({
  project: ProjectCard,
  sections: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      position: Type.Integer(),
      checklists: Type.Array(
        Type.Object({ id: Type.Integer(), name: Type.String(), position: Type.Integer(), items: Type.Array(ItemSummary) }),
      ),
    }),
  ),
});

export const DocumentLink = Type.Object({
  id: Type.Integer(),
  kind: LinkKind,
  title: Type.String(),
  url: Type.String(),
});

export const Attachment = Type.Object({
  id: Type.Integer(),
  original_name: Type.String(),
  mime_type: Type.String(),
  path: Type.String(),
  url: Type.String(),
  size: Type.Integer(),
  width: Type.Integer(),
  height: Type.Integer(),
  created_at: DateTime(),
  // Photos that show the defect (docs/design.md §22).
  annotates: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The photo this marked-up picture was drawn on (an attachment id), or null for a photo as taken',
  }),
  stage: Type.Union([Type.Enum([...PHOTO_STAGES]), Type.Null()], {
    description: '`defect` (raised with the item), `fix` (with an answer, or added while in progress or done), or null for none',
  }),
  caption: Type.Union([Type.String({ maxLength: MAX_CAPTION_LENGTH }), Type.Null()], {
    description: `Plain text, at most ${MAX_CAPTION_LENGTH} characters, or null`,
  }),
});

export const Comment = Type.Object({
  id: Type.Integer(),
  text: Type.String(),
  author: UserRef,
  created_at: DateTime(),
});

export const Answer = Type.Object({
  id: Type.Integer(),
  text: Type.String(),
  status: AnswerStatus,
  author: UserRef,
  document_links: Type.Array(DocumentLink),
  attachments: Type.Array(Attachment),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const HistoryEntry = Type.Object({
  kind: Type.Enum(['created', 'status_changed']),
  from: Type.Union([ItemStatus, Type.Null()]),
  to: Type.Union([ItemStatus, Type.Null()]),
  at: DateTime(),
  user: Nullable(UserRef),
  note: NullableString(),
});

/** An open dispute: why, who raised it, when. */
const Dispute = Type.Object({ reason: Type.String(), by: Nullable(UserRef), at: DateTime() });

export const Item = Type.Object({
  id: Type.Integer(),
  project_id: Type.Integer(),
  section_id: Type.Integer(),
  checklist_id: Type.Integer(),
  text: Type.String(),
  description: Type.String(),
  status: ItemStatus,
  priority: Priority,
  deadline: NullableString({ format: 'date' }),
  requires_answer: Type.Boolean(),
  verdict: NullableString(),
  rework_reason: NullableString(),
  rework_deadline: NullableString({ format: 'date' }),
  participants: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), role: NullableString() })),
  comments: Type.Array(Comment),
  answers: Type.Array(Answer),
  attachments: Type.Array(Attachment),
  document_links: Type.Array(DocumentLink),
  status_history: Type.Array(HistoryEntry),
  location: Nullable(Location),
  category: NullableString(),
  fields: FieldValues,
  responsible_company: Nullable(CompanyRef),
  ball_in_court: BallInCourtValue,
  disputed: Nullable(Dispute),
  can_verdict: Type.Boolean(),
  can_return_to_rework: Type.Boolean(),
  created_at: DateTime(),
  updated_at: DateTime(),
});

export const Identity = Type.Object({
  user: Type.Object({ id: Type.Integer(), name: Type.String(), role: Type.String() }),
  token: Type.Object({
    id: Type.Integer(),
    label: Type.String(),
    scopes: Type.Array(Type.String()),
    expires_at: NullableString({ format: 'date-time' }),
    /** The projects the token is limited to; null: every project its user can see (docs/design.md §18). */
    project_ids: Nullable(Type.Array(Type.Integer())),
  }),
  scopes: Type.Array(Type.String()),
});

export const SearchHit = Type.Object({
  item_id: NullableInteger(),
  entity_type: SearchEntityType,
  entity_id: Type.Integer(),
  project_id: Type.Integer(),
  title: Type.String(),
  snippet: Type.String(),
});

/** One change (docs/design.md §11): `data` holds what changed, shaped as the rest of v1 shows it. */
export const Event = Type.Object({
  id: Type.Integer({ description: 'Increases with every event: the cursor of `after`' }),
  type: Type.Enum([...EVENT_TYPES]),
  at: Type.String({ format: 'date-time' }),
  project_id: Type.Integer(),
  item_id: NullableInteger(),
  actor: Nullable(UserRef),
  token_id: NullableInteger(),
  data: Type.Record(Type.String(), Type.Unknown(), {
    description: 'What changed: {from, to} for a status, the created comment or answer, the new link list, the attachments…',
  }),
});

/** A pin of a plan: an item the reader can see, where it is, and its status (its colour). */
export const Pin = Type.Object({
  item_id: Type.Integer(),
  x: Type.Number({ minimum: 0, maximum: 1 }),
  y: Type.Number({ minimum: 0, maximum: 1 }),
  status: ItemStatus,
});

/** A plan (docs/design.md §19): its current version's sheet size in pixels, and the pins of the items the reader sees. */
export const Plan = Type.Object({
  id: Type.Integer(),
  project_id: Type.Integer(),
  name: Type.String(),
  version: Type.Integer({ description: 'The current version (1 for a new plan); earlier ones stay viewable' }),
  width: Type.Integer({ description: 'The sheet of the current version, in pixels' }),
  height: Type.Integer(),
  versions: Type.Array(Type.Object({ version: Type.Integer(), width: Type.Integer(), height: Type.Integer(), created_at: DateTime() })),
  file_url: Type.String({ description: 'The current sheet as one WebP image (`/api/plans/file.php`)' }),
  tiles_url: Type.String({ description: 'The Deep Zoom descriptor (DZI) of the current version, for a zooming viewer' }),
  pins: Type.Array(Pin),
  created_at: DateTime(),
  updated_at: DateTime(),
});

/** The shapes the OpenAPI document names under `components.schemas` and refers to wherever they occur. */
export const NAMED_SCHEMAS: Record<string, TSchema> = {
  ProjectTree,
  Item,
  ProjectCard,
  ItemSummary,
  Location,
  Plan,
  Pin,
  SearchHit,
  Identity,
  Answer,
  Comment,
  Attachment,
  DocumentLink,
  UserRef,
  Event,
};

/**
 * Keywords of this codebase that mean nothing to outside readers (the OpenAPI document, the MCP tool list):
 * validation messages and their reasons' keys go; a query parameter validated as decimal text is shown as the integer it stands for
 * (OPENAPI_TYPE).
 */
export function stripPrivateKeywords(node: unknown, parentKey?: string): void {
  if (Array.isArray(node)) return node.forEach((child) => stripPrivateKeywords(child));
  if (typeof node !== 'object' || node === null) return;
  const object = node as Record<string, any>;
  if (parentKey !== 'properties' && typeof object.errorMessage === 'string') delete object.errorMessage;
  if (parentKey !== 'properties' && typeof object.errorReason === 'object') delete object.errorReason;
  if (parentKey !== 'properties' && typeof object[OPENAPI_TYPE] === 'object') {
    const shown = object[OPENAPI_TYPE] as Record<string, any>;
    delete object[OPENAPI_TYPE];
    delete object.pattern;
    Object.assign(object, shown);
  }
  for (const [key, value] of Object.entries(object)) stripPrivateKeywords(value, key);
}

/** A schema as plain JSON Schema for outside readers (the MCP tools): a copy, stripped as above. */
export function publicSchema(schema: unknown): { type: 'object'; [key: string]: unknown } {
  const copy = JSON.parse(JSON.stringify(schema)) as { type: 'object'; [key: string]: unknown };
  stripPrivateKeywords(copy);
  return copy;
}
