import type { OperationId } from './operations.js';

/**
 * Prose and examples of the OpenAPI document, per operation. Shapes are not declared here: they come
 * from the operation definitions (operations.ts), and test/openapi.test.ts validates every example
 * below against them.
 */
export interface OperationDoc {
  /** Markdown appended to the route's summary in the operation's description. */
  description: string;
  /** Example values of query parameters, by name. */
  query?: Record<string, string>;
  /** Example JSON request body (JSON writes). */
  body?: Record<string, unknown>;
  /** Example `data` of the success envelope. */
  data: unknown;
}

const AT = '2026-05-04T09:30:00.000Z';
const CREATED = '2026-03-02T08:00:00.000Z';

const card = {
  id: 1,
  name: 'Plant audit',
  description: 'Yearly safety and compliance audit of the main production plant.',
  deadline: '2026-12-31',
  verdict: null,
  archived: false,
  progress: { done: 2, total: 7, percent: 28 },
  counters: { sections: 2, checklists: 4, items: 7, pending: 3, in_progress: 1, done: 2, blocked: 1 },
  created_at: CREATED,
  updated_at: AT,
};

const manager = { id: 2, name: 'Maria Manager' };
const executor = { id: 3, name: 'Egor Executor' };

const attachment = (id: number, owner: 'items' | 'answers', ownerId: number) => ({
  id,
  original_name: 'extinguisher-tag.jpg',
  mime_type: 'image/webp',
  path: `${owner}/${ownerId}/5b0e4a2c-8f7d-4a59-9b1e-2f4d7c9a1e30.webp`,
  url: `https://punchlist.example.com/api/${owner}/file.php?id=${id}`,
  size: 48213,
  width: 1280,
  height: 960,
  created_at: AT,
});

const link = { id: 12, kind: 'document', title: 'Fire safety plan', url: 'https://example.com/docs/fire-safety-plan' };

const answer = {
  id: 7002,
  text: 'All 24 extinguishers checked; the inspection act is linked.',
  status: 'pending',
  author: executor,
  document_links: [{ id: 13, kind: 'document', title: 'Inspection act', url: 'https://example.com/docs/act-2026-05' }],
  attachments: [],
  created_at: AT,
  updated_at: AT,
};

export const OPERATION_DOCS: Record<OperationId, OperationDoc> = {
  me: {
    description:
      'The recommended first call: confirms that the token works, names the user it acts as and lists its scopes. ' +
      '`meta.api_version` states the active API version (`v1`).',
    data: {
      user: { id: 2, name: 'Maria Manager', role: 'member' },
      token: { id: 4, label: 'CRM sync', scopes: ['auth:me', 'projects:read', 'items:read'], expires_at: '2026-12-31T23:59:59.000Z' },
      scopes: ['auth:me', 'projects:read', 'items:read'],
    },
  },
  listProjects: {
    description:
      'Ordered by id. `limit` 1–200 (default 50), `offset` ≥ 0 (default 0); `archived`: `false`/`0` (default, active ' +
      'projects only), `true`/`1` (archived only) or `all`. Values outside those are refused with 422, never clamped. ' +
      'Progress and counters count only what the user can see.',
    query: { limit: '50', offset: '0', archived: 'false' },
    data: { projects: [card], total: 1, limit: 50, offset: 0 },
  },
  getProject: {
    description: 'The project card. A project the user cannot see answers 404 `not_found`, exactly like one that does not exist.',
    query: { id: '1' },
    data: { project: card },
  },
  getProjectTree: {
    description:
      'The project card with its sections, their checklists and their items (a summary of each item). A user with ' +
      'partial access gets only the part they can see.',
    query: { id: '1' },
    data: {
      project: card,
      sections: [
        {
          id: 10,
          name: 'Safety',
          position: 0,
          checklists: [
            {
              id: 100,
              name: 'Fire protection',
              position: 0,
              items: [
                { id: 1000, text: 'Extinguishers checked and tagged', status: 'in_progress', priority: 'high', deadline: '2026-05-15', requires_answer: true },
              ],
            },
          ],
        },
      ],
    },
  },
  searchProject: {
    description:
      'Case-insensitive substring search over the project name and description, section and checklist names, item ' +
      'text and description, answers, comments and links. `entity_type` restricts the hits to one of `project`, ' +
      '`section`, `checklist`, `item`, `comment`, `answer`, `link`; `item_id` narrows to one item (then `q` may be ' +
      'omitted: every entity of that item). The recommended way to find an item: search, then work by its exact `item_id`.',
    query: { id: '1', q: 'extinguisher', limit: '50', offset: '0' },
    data: {
      hits: [
        {
          item_id: 1000,
          entity_type: 'item',
          entity_id: 1000,
          project_id: 1,
          title: 'Extinguishers checked and tagged',
          snippet: 'Extinguishers checked and tagged',
        },
        {
          item_id: 1000,
          entity_type: 'answer',
          entity_id: 7000,
          project_id: 1,
          title: 'All 24 extinguishers checked; inspection act attached.',
          snippet: 'All 24 extinguishers checked; inspection act attached.',
        },
      ],
      total: 2,
      limit: 50,
      offset: 0,
    },
  },
  getItem: {
    description:
      'The item card: text, read-only description, status, planning fields, participants, comments, answers (with ' +
      'their links and images), images, document links, status history, and the informational verdict fields.',
    query: { id: '1000' },
    data: {
      item: {
        id: 1000,
        project_id: 1,
        section_id: 10,
        checklist_id: 100,
        text: 'Extinguishers checked and tagged',
        description: 'Every extinguisher has a valid inspection tag and is within reach.',
        status: 'in_progress',
        priority: 'high',
        deadline: '2026-05-15',
        requires_answer: true,
        verdict: null,
        rework_reason: null,
        rework_deadline: null,
        participants: [{ id: 3, name: 'Egor Executor', role: 'executor' }],
        comments: [{ id: 5000, text: 'Please attach the inspection act.', author: manager, created_at: CREATED }],
        answers: [{ ...answer, id: 7000, status: 'approved', attachments: [attachment(901, 'answers', 7000)] }],
        attachments: [attachment(900, 'items', 1000)],
        document_links: [link],
        status_history: [
          { kind: 'created', from: null, to: 'pending', at: CREATED, user: null, note: null },
          { kind: 'status_changed', from: 'pending', to: 'in_progress', at: AT, user: executor, note: null },
        ],
        can_verdict: true,
        can_return_to_rework: true,
        created_at: CREATED,
        updated_at: AT,
      },
    },
  },
  setItemStatus: {
    description:
      '`status` is one of `pending`, `in_progress`, `done`, `blocked` (anything else: 422). Setting the current ' +
      'status again answers 200 with `changed: false` and adds no history entry.',
    body: { id: 1000, status: 'done' },
    data: { item: { id: 1000, status: 'done', updated_at: AT }, changed: true },
  },
  setItemPlanning: {
    description:
      'Send `id` and at least one of `deadline` (`YYYY-MM-DD`; `null` or `""` clears it, `null` preferred), ' +
      '`priority` (`low`, `medium`, `high`) and `requires_answer` (boolean). Fields not sent stay unchanged.',
    body: { id: 1000, deadline: '2026-06-30', priority: 'high' },
    data: { item: { id: 1000, deadline: '2026-06-30', priority: 'high', requires_answer: true, updated_at: AT } },
  },
  addComment: {
    description: 'Text only (1–20 000 characters, stored trimmed); files and links belong in answers.',
    body: { item_id: 1000, text: 'The tags of the second floor are checked too.' },
    data: { comment: { id: 5002, text: 'The tags of the second floor are checked too.', author: executor, created_at: AT } },
  },
  addAnswer: {
    description:
      'A substantive reply: text (1–20 000 characters) and optional `document_links` (each `{kind?, title, url}`, ' +
      'absolute http(s) URLs, at most 100). The new answer awaits review (`status: pending`).',
    body: {
      item_id: 1000,
      text: 'All 24 extinguishers checked; the inspection act is linked.',
      document_links: [{ kind: 'document', title: 'Inspection act', url: 'https://example.com/docs/act-2026-05' }],
    },
    data: { answer },
  },
  replaceItemLinks: {
    description:
      'Replaces the whole `document_links` list of the item (not an append); `[]` clears it. Each link: `kind` ' +
      '(`document`, `spreadsheet`, `presentation`, `folder`, `image`, `video`, `link`; default `document`), `title` ' +
      '(1–500 characters), `url` (absolute http or https). At most 100 links.',
    body: { id: 1000, document_links: [{ kind: 'document', title: 'Fire safety plan', url: 'https://example.com/docs/fire-safety-plan' }] },
    data: { document_links: [link] },
  },
  attachItemImages: {
    description:
      '`multipart/form-data` with `item_id` and 1–10 files in `attachments[]` (each ≤ 20 MiB, ≤ 50 megapixels, at ' +
      'least 16×16). PNG, JPEG, GIF and WebP are accepted, recognised from the bytes; each is stored as WebP. One ' +
      'refused file refuses the whole request (422, nothing stored).',
    data: { attachments: [attachment(902, 'items', 1000)] },
  },
  attachAnswerImages: {
    description:
      '`multipart/form-data` with `answer_id` and 1–10 files in `attachments[]` (same rules as item images). An ' +
      'approved or rejected answer returns to review: `status_reset: true` and `answer_status: pending`.',
    data: { attachments: [attachment(903, 'answers', 7000)], status_reset: true, answer_status: 'pending' },
  },
  listEvents: {
    description:
      'The change feed: every change of an item or what hangs on it (status, planning, links, images, comments, ' +
      'answers, reviews, verdicts, returns to rework) and project verdicts, made through the API or the web, one ' +
      'event each, in commit order. Only events about what the user can see now are listed. Read in a loop: pass ' +
      'the previous `next_after` as `after`; with `wait` (up to 30 s) the call answers as soon as a matching event ' +
      'is committed, or with an empty list when the time is up. Requires the `events:read` scope.',
    query: { after: '4810', types: 'item.status_changed,comment.created', wait: '25' },
    data: {
      events: [
        {
          id: 4811,
          type: 'item.status_changed',
          at: AT,
          project_id: 1,
          item_id: 1000,
          actor: { id: 3, name: 'Egor Executor' },
          token_id: 12,
          data: { from: 'in_progress', to: 'done' },
        },
      ],
      next_after: 4811,
      has_more: false,
    },
  },
};
