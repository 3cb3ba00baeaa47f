import { Type, type TSchema } from 'typebox';
import { ITEM_STATUSES, PRIORITIES } from '../../domain/values.js';

/** Shapes of v1, in one place: they validate requests, strip responses and feed the OpenAPI document. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ID_PATTERN = '^[1-9][0-9]{0,15}$';
/** A positive decimal id in a query string. */
export const QueryId = Type.String({ pattern: ID_PATTERN, errorMessage: 'must be a positive integer id' });
/** A positive id in a JSON body: a JSON integer, never a string. */
export const BodyId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, errorMessage: 'must be a positive integer id' });

export const Limit = Type.String({
  pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9]{2}|200)$',
  errorMessage: 'must be an integer from 1 to 200',
});
export const Offset = Type.String({ pattern: '^(?:0|[1-9][0-9]{0,8})$', errorMessage: 'must be an integer of 0 or more' });

export const UserRef = Type.Object({ id: Type.Integer(), name: Type.String() });

export const ProjectCard = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  deadline: Nullable(Type.String({ format: 'date' })),
  verdict: Nullable(Type.String()),
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
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const ItemStatus = Type.Enum([...ITEM_STATUSES]);
export const Priority = Type.Enum([...PRIORITIES]);

export const ItemSummary = Type.Object({
  id: Type.Integer(),
  text: Type.String(),
  status: Type.String(),
  priority: Type.String(),
  deadline: Nullable(Type.String({ format: 'date' })),
  requires_answer: Type.Boolean(),
});

export const DocumentLink = Type.Object({
  id: Type.Integer(),
  kind: Type.String(),
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
  created_at: Type.String({ format: 'date-time' }),
});

export const Comment = Type.Object({
  id: Type.Integer(),
  text: Type.String(),
  author: UserRef,
  created_at: Type.String({ format: 'date-time' }),
});

export const Answer = Type.Object({
  id: Type.Integer(),
  text: Type.String(),
  status: Type.String(),
  author: UserRef,
  document_links: Type.Array(DocumentLink),
  attachments: Type.Array(Attachment),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const HistoryEntry = Type.Object({
  kind: Type.Union([Type.Literal('created'), Type.Literal('status_changed')]),
  from: Nullable(Type.String()),
  to: Nullable(Type.String()),
  at: Type.String({ format: 'date-time' }),
  user: Nullable(UserRef),
  note: Nullable(Type.String()),
});

export const Item = Type.Object({
  id: Type.Integer(),
  project_id: Type.Integer(),
  section_id: Type.Integer(),
  checklist_id: Type.Integer(),
  text: Type.String(),
  description: Type.String(),
  status: Type.String(),
  priority: Type.String(),
  deadline: Nullable(Type.String({ format: 'date' })),
  requires_answer: Type.Boolean(),
  verdict: Nullable(Type.String()),
  rework_reason: Nullable(Type.String()),
  rework_deadline: Nullable(Type.String({ format: 'date' })),
  participants: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), role: Nullable(Type.String()) })),
  comments: Type.Array(Comment),
  answers: Type.Array(Answer),
  attachments: Type.Array(Attachment),
  document_links: Type.Array(DocumentLink),
  status_history: Type.Array(HistoryEntry),
  can_verdict: Type.Boolean(),
  can_return_to_rework: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
