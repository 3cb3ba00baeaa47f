import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import type { VocabularyRepository } from '../vocabulary/vocabulary.repository.js';
import type { AnswersRepository } from './answers/answers.repository.js';
import type { AttachmentsRepository } from './attachments/attachments.repository.js';
import type { CommentsRepository } from './comments/comments.repository.js';
import type { ItemEditsRepository } from './item-edits.repository.js';
import type { ItemsRepository } from './items.repository.js';
import type { ReviewRepository } from './review/review.repository.js';

/** The repositories whose statements an item write runs, as built on the database. */
export interface RepositoriesOfWrites {
  items: ItemsRepository;
  edits: ItemEditsRepository;
  projects: ProjectsRepository;
  comments: CommentsRepository;
  answers: AnswersRepository;
  attachments: AttachmentsRepository;
  review: ReviewRepository;
  vocabulary: VocabularyRepository;
}

/**
 * What the callback of an item write (item-writer.ts) receives instead of a database handle: every repository's
 * statements bound to the write's transaction (`repos.items.changeStatus(...)`, `repos.comments.insert(...)`).
 * None of them takes an executor, so the root database, whose statements on SQLite would wait for ever behind
 * the transaction that holds the one connection, is out of the callback's reach by type.
 */
export type WriteRepositories = { readonly [K in keyof RepositoriesOfWrites]: ReturnType<RepositoriesOfWrites[K]['bind']> };

/** Binds the repositories to a transaction (the write path binds once per transaction). */
export function bindWriteRepositories(repositories: RepositoriesOfWrites): (trx: Transaction<Database>) => WriteRepositories {
  return (trx) => ({
    items: repositories.items.bind(trx),
    edits: repositories.edits.bind(trx),
    projects: repositories.projects.bind(trx),
    comments: repositories.comments.bind(trx),
    answers: repositories.answers.bind(trx),
    attachments: repositories.attachments.bind(trx),
    review: repositories.review.bind(trx),
    vocabulary: repositories.vocabulary.bind(trx),
  });
}
