/**
 * Projects as one module: their statements (which other modules bind to their writes) and the service that says
 * who sees what of a project, its tree included. Built by both composition roots (the worker's on a read-only
 * database).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Actor } from '../../domain/policy.js';
import { createProjectsRepository } from './projects.repository.js';
import { createProjectsService, type ProjectsService } from './projects.service.js';

export function createProjectsModule(deps: { db: Kysely<Database> }) {
  const projectsRepo = createProjectsRepository(deps.db);
  const projects = createProjectsService(projectsRepo);
  return {
    projectsRepo,
    projects,
    /** The items `actor` sees in the project, from its tree (the bulk form's scope, features/items). */
    visibleItems: (actor: Actor, projectId: number) => visibleItems(projects, actor, projectId),
  };
}

export type ProjectsModule = ReturnType<typeof createProjectsModule>;

/** Whether the project is archived, and the ids of the items of its tree as `actor` sees it. */
export interface VisibleItems {
  archived: boolean;
  itemIds: number[];
}

async function visibleItems(projects: Pick<ProjectsService, 'getTree'>, actor: Actor, projectId: number): Promise<VisibleItems> {
  const tree = await projects.getTree(actor, projectId);
  return {
    archived: tree.project.archived,
    itemIds: tree.sections.flatMap((s) => s.checklists.flatMap((c) => c.items.map((i) => i.id))),
  };
}
