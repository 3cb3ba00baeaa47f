import { type Actor, canOnProject } from '../../domain/policy.js';
import { forbidden } from '../../shared/errors.js';
import type { ProjectAccessReads } from '../projects/projects.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { AuditEntryBuilder, EmitPlacedEvent, WritePath } from './write-path.js';

/**
 * 404 when the actor cannot see the project, 403 when they may not change its sections, checklists and vocabulary
 * (`project.structure`) or raise items in it (`project.items`). `reads`: under a write's lock, its repositories.
 */
export async function authorizeProject(
  projects: Pick<ProjectsService, 'access'>,
  actor: Actor,
  projectId: number,
  action: 'project.structure' | 'project.items',
  reads?: ProjectAccessReads,
): Promise<void> {
  const { project, membership } = await projects.access(actor, projectId, reads);
  if (!canOnProject(actor, action, { projectId, archived: project.archived === 1, membership })) {
    throw forbidden(
      project.archived === 1
        ? 'The project is archived: unarchive it before editing its structure'
        : 'You are not allowed to change the structure of this project',
    );
  }
}

/**
 * A structural write (sections, checklists, the project's vocabulary): the project's lock, then the
 * `project.structure` check on what the lock holds (404, 403 as `authorizeProject`), the write and its events.
 */
export function structureWrites<R extends { projects: ProjectAccessReads }>(path: WritePath<R>, projects: Pick<ProjectsService, 'access'>) {
  return <T>(
    actor: Actor,
    projectId: number,
    audit: AuditEntryBuilder | undefined,
    write: (repos: R, emit: EmitPlacedEvent) => Promise<T>,
  ): Promise<T> => {
    const authorize = (repos: R) => authorizeProject(projects, actor, projectId, 'project.structure', repos.projects);
    return path.writeProject({ projectId, actor, audit, authorize }, write);
  };
}

export type StructureWrite<R extends { projects: ProjectAccessReads }> = ReturnType<typeof structureWrites<R>>;
