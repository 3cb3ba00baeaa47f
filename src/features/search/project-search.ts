import type { Actor } from '../../domain/policy.js';
import { notFound } from '../../errors.js';
import type { ItemsService } from '../items/items.service.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SearchQuery, SearchService } from './search.service.js';

/** Search inside one project, over what the actor can see of it; an invisible project or item is 404. */
export function createProjectSearch(projects: ProjectsService, items: ItemsService, search: SearchService) {
  return {
    async searchProject(actor: Actor, projectId: number, query: SearchQuery) {
      const visibility = await projects.visibility(actor, projectId);
      if (query.itemId !== null) {
        const item = await items.access(actor, query.itemId).catch(() => null);
        if (!item || item.item.project_id !== projectId) throw notFound('The item');
      }
      const { hits, total } = await search.search(
        {
          projectId,
          sectionIds: visibility.sectionIds === 'all' ? 'all' : [...visibility.sectionIds],
          checklistIds: visibility.checklistIds === 'all' ? 'all' : [...visibility.checklistIds],
        },
        query,
      );
      return { hits, total, limit: query.limit, offset: query.offset };
    },
  };
}

export type ProjectSearch = ReturnType<typeof createProjectSearch>;
