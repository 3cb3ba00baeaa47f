import type { Actor } from '../../domain/policy.js';
import { notFound } from '../../errors.js';
import type { ItemsService } from '../items/items.service.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SearchHit, SearchQuery, SearchService } from './search.service.js';

/** One page of the hits of a search in a project (v1 projects/search). */
export interface ProjectSearchResult {
  hits: SearchHit[];
  total: number;
  limit: number;
  offset: number;
}

/** Search inside one project, over what the actor can see of it; an invisible project or item is 404. */
export function createProjectSearch(projects: ProjectsService, items: ItemsService, search: SearchService) {
  return {
    async searchProject(actor: Actor, projectId: number, query: SearchQuery): Promise<ProjectSearchResult> {
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

    /** The items with at least one match of `q` (in their text, comments, answers or links): the web's text filter. */
    async matchingItemIds(actor: Actor, projectId: number, q: string): Promise<Set<number>> {
      const { hits } = await this.searchProject(actor, projectId, {
        q,
        entityType: null,
        itemId: null,
        limit: Number.MAX_SAFE_INTEGER,
        offset: 0,
      });
      return new Set(hits.flatMap((h) => (h.item_id === null ? [] : [h.item_id])));
    },
  };
}

export type ProjectSearch = ReturnType<typeof createProjectSearch>;
