/**
 * A project's vocabulary (docs/design.md §21: categories and custom fields) as one module: each change a structural
 * write of the project. Its statements are given to the item aggregate and to templates, which write values.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Clock } from '../../shared/clock.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { WritePaths } from '../write-path/write-path.js';
import { createVocabularyRepository } from './vocabulary.repository.js';
import { createVocabularyService } from './vocabulary.service.js';

export interface VocabularyModuleDeps {
  db: Kysely<Database>;
  projectsRepo: ProjectsRepository;
  projects: ProjectsService;
  writePaths: WritePaths;
  clock: Clock;
}

export function createVocabularyModule(deps: VocabularyModuleDeps) {
  const { projectsRepo, clock } = deps;
  const vocabularyRepo = createVocabularyRepository(deps.db);
  return {
    vocabulary: createVocabularyService({
      repo: vocabularyRepo,
      projects: deps.projects,
      path: deps.writePaths((trx) => ({ vocabulary: vocabularyRepo.bind(trx), projects: projectsRepo.bind(trx) })),
      clock,
    }),
    vocabularyRepo,
  };
}

export type VocabularyModule = ReturnType<typeof createVocabularyModule>;
