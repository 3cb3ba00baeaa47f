import type { AppContext } from '../../context.js';
import { validationError } from '../../errors.js';
import { LIMIT } from './schemas.js';
import type { Handlers } from './operation-route.js';

const ARCHIVED = { false: 'active', '0': 'active', true: 'archived', '1': 'archived', all: 'all' } as const;

/** Projects: the list, a card, a tree, and search inside one project. */
export const projectsHandlers = ({ projects, projectSearch }: AppContext): Pick<Handlers, 'listProjects' | 'getProject' | 'getProjectTree' | 'searchProject'> => ({
  listProjects: ({ user, query: { limit = String(LIMIT.default), offset = '0', archived = 'false' } }) =>
    projects.listProjects(user, { archived: ARCHIVED[archived], limit: Number(limit), offset: Number(offset) }),

  getProject: ({ user, query }) => projects.getProject(user, Number(query.id)),

  getProjectTree: ({ user, query }) => projects.getTree(user, Number(query.id)),

  searchProject: ({ user, query: { id, q, entity_type, item_id, limit = String(LIMIT.default), offset = '0' } }) => {
    const text = q?.trim() ? q : null;
    if (text === null && item_id === undefined) throw validationError('q', 'is required unless item_id is given');
    return projectSearch.searchProject(user, Number(id), {
      q: text,
      entityType: entity_type ?? null,
      itemId: item_id === undefined ? null : Number(item_id),
      limit: Number(limit),
      offset: Number(offset),
    });
  },
});
