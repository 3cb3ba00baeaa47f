/**
 * Administration and structure as one module: projects, sections and checklists (the project page and /admin),
 * project members, and users' accounts. Items are the item aggregate's (features/items).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Clock } from '../../shared/clock.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import type { UsersService } from '../users/users.service.js';
import type { WritePaths } from '../write-path/write-path.js';
import { createMembersRepository } from './members.repository.js';
import { createMembersService } from './members.service.js';
import { createStructureRepository } from './structure.repository.js';
import { createStructureService } from './structure.service.js';
import { createUsersAdminService } from './users-admin.service.js';

export interface AdminModuleDeps {
  db: Kysely<Database>;
  projectsRepo: ProjectsRepository;
  projects: ProjectsService;
  writePaths: WritePaths;
  clock: Clock;
  users: UsersService;
  sessions: SessionsService;
  tokens: TokensService;
}

export function createAdminModule(deps: AdminModuleDeps) {
  const { projectsRepo, projects, clock } = deps;
  const structureRepo = createStructureRepository(deps.db);
  return {
    structure: createStructureService({
      repo: structureRepo,
      projectsRepo,
      projects,
      path: deps.writePaths((trx) => ({ structure: structureRepo.bind(trx), projects: projectsRepo.bind(trx) })),
      clock,
    }),
    /** The structure's statements, for a template's write that adds sections and checklists (features/templates). */
    structureRepo,
    members: createMembersService({ repo: createMembersRepository(deps.db), clock }),
    usersAdmin: createUsersAdminService({ users: deps.users, sessions: deps.sessions, tokens: deps.tokens }),
  };
}

export type AdminModule = ReturnType<typeof createAdminModule>;
