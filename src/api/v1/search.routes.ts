import { Type } from 'typebox';
import { validationError } from '../../errors.js';
import { SEARCH_ENTITY_TYPES, type SearchEntityType } from '../../features/search/search.service.js';
import { Envelope, ok } from '../envelope.js';
import { setAuditEntity } from '../request-state.js';
import { Limit, Nullable, Offset, QueryId } from './schemas.js';
import type { V1App } from './plugin.js';

export const SearchHit = Type.Object({
  item_id: Nullable(Type.Integer()),
  entity_type: Type.Enum([...SEARCH_ENTITY_TYPES]),
  entity_id: Type.Integer(),
  project_id: Type.Integer(),
  title: Type.String(),
  snippet: Type.String(),
});

export const SearchResult = Type.Object({
  hits: Type.Array(SearchHit),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

const SearchQuery = Type.Object({
  id: QueryId,
  q: Type.Optional(Type.String({ maxLength: 200, errorMessage: 'must be at most 200 characters' })),
  entity_type: Type.Optional(Type.Enum([...SEARCH_ENTITY_TYPES])),
  item_id: Type.Optional(QueryId),
  limit: Type.Optional(Limit),
  offset: Type.Optional(Offset),
});

export async function searchRoutes(app: V1App) {
  const { projectSearch } = app.ctx;

  app.get(
    '/projects/search.php',
    {
      config: { scope: 'projects:search' },
      schema: {
        summary: 'Search inside a project (names, items, comments, answers, links), over what the user can see',
        description:
          'Case-insensitive substring match with Unicode lower-casing. `q` empty or blank counts as absent; absent is valid only with `item_id` ' +
          '(then every entity of that item is listed). Order: project, sections, checklists, items, answers, comments, links; ' +
          'matches in the title before matches in the body; then by id.',
        querystring: SearchQuery,
        response: { 200: Envelope(SearchResult) },
      },
    },
    async (request) => {
      const { id, q, entity_type, item_id, limit = '50', offset = '0' } = request.query;
      const text = q?.trim() ? q : null;
      if (text === null && item_id === undefined) throw validationError('q', 'is required unless item_id is given');
      setAuditEntity(request, 'project', Number(id));
      const data = await projectSearch.searchProject(request.principal!.user, Number(id), {
        q: text,
        entityType: (entity_type as SearchEntityType | undefined) ?? null,
        itemId: item_id === undefined ? null : Number(item_id),
        limit: Number(limit),
        offset: Number(offset),
      });
      return ok(request, data);
    },
  );
}
