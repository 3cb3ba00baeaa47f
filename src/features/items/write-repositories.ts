import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { StructureRepository } from '../admin/structure.repository.js';
import type { AnswersRepository } from '../answers/answers.repository.js';
import type { AttachmentsRepository } from '../attachments/attachments.repository.js';
import type { CommentsRepository } from '../comments/comments.repository.js';
import type { PlansRepository } from '../plans/plans.repository.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import type { ReviewRepository } from '../review/review.repository.js';
import type { VocabularyRepository } from '../vocabulary/vocabulary.repository.js';
import type { TemplatesRepository } from '../templates/templates.repository.js';
import type { ItemsRepository } from './items.repository.js';

/** The repositories whose statements an item or structural write runs, as built on the database. */
export interface RepositoriesOfWrites {
  items: ItemsRepository;
  projects: ProjectsRepository;
  comments: CommentsRepository;
  answers: AnswersRepository;
  attachments: AttachmentsRepository;
  review: ReviewRepository;
  structure: StructureRepository;
  plans: PlansRepository;
  vocabulary: VocabularyRepository;
  templates: TemplatesRepository;
}

/**
 * What the callback of a write (item-writer.ts) receives instead of a database handle: every repository's
 * statements bound to the write's transaction (`repos.items.changeStatus(...)`, `repos.comments.insert(...)`).
 * None of them takes an executor, so the root database, whose statements on SQLite would wait for ever behind
 * the transaction that holds the one connection, is out of the callback's reach by type.
 */
export type WriteRepositories = { readonly [K in keyof RepositoriesOfWrites]: ReturnType<RepositoriesOfWrites[K]['bind']> };

/**
 * Binds the repositories to a transaction, once per transaction: on SQLite the writes of one group commit
 * (db/group-commit.ts) share theirs.
 */
export function createWriteRepositories(repositories: RepositoriesOfWrites): (trx: Transaction<Database>) => WriteRepositories {
  const bound = new WeakMap<Transaction<Database>, WriteRepositories>();
  return (trx) => {
    let repos = bound.get(trx);
    if (!repos) {
      repos = {
        items: repositories.items.bind(trx),
        projects: repositories.projects.bind(trx),
        comments: repositories.comments.bind(trx),
        answers: repositories.answers.bind(trx),
        attachments: repositories.attachments.bind(trx),
        review: repositories.review.bind(trx),
        structure: repositories.structure.bind(trx),
        plans: repositories.plans.bind(trx),
        vocabulary: repositories.vocabulary.bind(trx),
        templates: repositories.templates.bind(trx),
      };
      bound.set(trx, repos);
    }
    return repos;
  };
}
