/**
 * Checklist templates (docs/design.md §21) as one module: a template applied to a project is one structural write
 * that adds its sections, checklists, items (through the item aggregate's statements) and vocabulary.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Clock } from '../../shared/clock.js';
import type { AdminModule } from '../admin/index.js';
import { createItemEditsRepository } from '../items/index.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { VocabularyRepository } from '../vocabulary/vocabulary.repository.js';
import type { WritePaths } from '../write-path/write-path.js';
import { createTemplatesRepository } from './templates.repository.js';
import { createTemplatesService } from './templates.service.js';

export interface TemplatesModuleDeps {
  db: Kysely<Database>;
  projectsRepo: ProjectsRepository;
  projects: ProjectsService;
  vocabularyRepo: VocabularyRepository;
  /** The structure (features/admin): its checks, and its statements bound to a template's write. */
  admin: Pick<AdminModule, 'structure' | 'structureRepo'>;
  writePaths: WritePaths;
  clock: Clock;
}

export function createTemplatesModule(deps: TemplatesModuleDeps) {
  const { projectsRepo, vocabularyRepo, admin } = deps;
  const templatesRepo = createTemplatesRepository(deps.db);
  const itemEditsRepo = createItemEditsRepository(deps.db);
  // A template's write adds sections, checklists, items and vocabulary, each on its module's statements.
  const path = deps.writePaths((trx) => ({
    structure: admin.structureRepo.bind(trx),
    projects: projectsRepo.bind(trx),
    items: itemEditsRepo.bind(trx),
    vocabulary: vocabularyRepo.bind(trx),
    templates: templatesRepo.bind(trx),
  }));
  const templates = createTemplatesService({
    repo: templatesRepo,
    vocabularyRepo,
    projectsRepo,
    projects: deps.projects,
    structure: admin.structure,
    path,
    clock: deps.clock,
  });
  return { templates };
}

export type TemplatesModule = ReturnType<typeof createTemplatesModule>;
