import { Type } from 'typebox';
import { SEARCH_ENTITY_TYPES } from '../../../domain/values.js';
import { validationError } from '../../../shared/errors.js';
import { ItemIdArgument, ProjectIdArgument } from './tool-inputs.js';
import { defineOperation, readErrors } from '../define-operation.js';
import { LIMIT, Limit, Offset, QueryId, SearchHit } from '../schemas.js';
import { READ, strict } from './shared.js';

export const searchProject = defineOperation({
  method: 'GET',
  path: '/projects/search.php',
  scope: 'projects:search',
  tag: 'projects',
  body: 'none',
  status: 200,
  summary: 'Search inside a project (names, items, comments, answers, links), over what the user can see',
  description:
    'Case-insensitive substring search over the project name and description, section and checklist names, item ' +
    'text and description, answers, comments and links. `entity_type` restricts the hits to one of `project`, ' +
    '`section`, `checklist`, `item`, `comment`, `answer`, `link`; `item_id` narrows to one item (then `q` may be ' +
    'omitted: every entity of that item). The recommended way to find an item: search, then work by its exact `item_id`.',
  query: strict({
    id: QueryId('The project to search in'),
    q: Type.Optional(
      Type.String({
        maxLength: 200,
        errorMessage: 'must be at most 200 characters',
        description: 'Text to find (case-insensitive substring); may be omitted with `item_id`',
      }),
    ),
    entity_type: Type.Optional(Type.Enum([...SEARCH_ENTITY_TYPES], { description: 'Only hits of this type' })),
    item_id: Type.Optional(QueryId('Only this item and what hangs on it (its comments, answers, links)')),
    limit: Type.Optional(Limit()),
    offset: Type.Optional(Offset('Hits to skip (default 0)')),
  }),
  data: Type.Object({ hits: Type.Array(SearchHit), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
  audit: { entity: 'project', field: 'id' },
  errors: readErrors('not_found', 'validation_error'),
  examples: {
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
  handler: ({ user, query: { id, q, entity_type, item_id, limit = String(LIMIT.default), offset = '0' } }, { offloadedReads }) => {
    const text = q?.trim() ? q : null;
    if (text === null && item_id === undefined) throw validationError('q', 'is required unless item_id is given');
    // In a worker thread (features/offload): a broad search reads thousands of rows.
    return offloadedReads.search(user, Number(id), {
      q: text,
      entityType: entity_type ?? null,
      itemId: item_id === undefined ? null : Number(item_id),
      limit: Number(limit),
      offset: Number(offset),
    });
  },
  client: { positional: ['id'], rest: 'query' },
  mcp: {
    tool: 'search_project',
    title: 'Search a project',
    hints: READ,
    description:
      'Finds items and what was said about them inside one project (names, item text and description, comments, ' +
      'answers, links; case-insensitive substring). This is how to locate an item: search first, then use the exact ' +
      'item_id of a hit with get_item and the write tools; never guess ids. entity_type restricts the hits (project, ' +
      'section, checklist, item, comment, answer, link); item_id alone (without q) lists everything about one item.',
    rename: { id: ProjectIdArgument, item_id: ItemIdArgument },
  },
});
