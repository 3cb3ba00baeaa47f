import type { Actor } from '../../domain/policy.js';
import { notFound } from '../../shared/errors.js';
import type { ItemsService } from '../items/index.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SearchHit, SearchQuery, SearchService, SearchVisibility } from './search.service.js';

/** One page of the hits of a search in a project (v1 projects/search). */
export interface ProjectSearchResult {
  hits: SearchHit[];
  total: number;
  limit: number;
  offset: number;
}

/** Search inside one project, over what the actor can see of it; an invisible project or item is 404. */
export function createProjectSearch(projects: ProjectsService, items: ItemsService, search: SearchService) {
  /** What the actor sees of the project, for the search (404 when nothing). */
  async function visibilityIn(actor: Actor, projectId: number): Promise<SearchVisibility> {
    const visibility = await projects.visibility(actor, projectId);
    return {
      projectId,
      sectionIds: visibility.sectionIds === 'all' ? 'all' : [...visibility.sectionIds],
      checklistIds: visibility.checklistIds === 'all' ? 'all' : [...visibility.checklistIds],
      ...(visibility.companyItems ? { companyId: visibility.companyItems.companyId } : {}),
    };
  }

  return {
    async searchProject(actor: Actor, projectId: number, query: SearchQuery): Promise<ProjectSearchResult> {
      const visibility = await visibilityIn(actor, projectId);
      if (query.itemId !== null) {
        const item = await items.access(actor, query.itemId).catch(() => null);
        if (!item || item.item.project_id !== projectId) throw notFound('The item');
      }
      const { hits, total } = await search.search(visibility, query);
      return { hits, total, limit: query.limit, offset: query.offset };
    },

    /** The items with at least one match of `q` (in their text, comments, answers or links): the web's text filter. */
    async matchingItemIds(actor: Actor, projectId: number, q: string): Promise<Set<number>> {
      return search.itemIds(await visibilityIn(actor, projectId), q);
    },
  };
}

export type ProjectSearch = ReturnType<typeof createProjectSearch>;
