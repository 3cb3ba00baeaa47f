/**
 * The item aggregate (STYLE.md 16): its writer, its commands (create, edit, move, status, planning, comments,
 * answers, photos and links, review and verdicts, place on a plan, company, dispute, category and fields, bulk
 * changes) and its repositories. Other features and the composition root use this face, never its insides.
 */
import type { Kysely } from 'kysely';
import type { TransactionRunner } from '../../db/group-commit.js';
import type { Database } from '../../db/tables.js';
import type { ImageConverter } from '../../imaging/images.js';
import type { Clock } from '../../shared/clock.js';
import type { BlobStore } from '../../storage/index.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { ProjectsModule } from '../projects/index.js';
import type { VocabularyRepository } from '../vocabulary/vocabulary.repository.js';
import { createWritePath, type EventOutbox } from '../write-path/write-path.js';
import { createAnswersRepository } from './answers/answers.repository.js';
import { createAnswersService } from './answers/answers.service.js';
import { createAttachmentsRepository } from './attachments/attachments.repository.js';
import { createAttachmentsService } from './attachments/attachments.service.js';
import { createBulkChangesService } from './bulk-changes.service.js';
import { createCommentsRepository } from './comments/comments.repository.js';
import { createCommentsService } from './comments/comments.service.js';
import { createItemDisputeService } from './item-dispute.service.js';
import { createItemEditsRepository } from './item-edits.repository.js';
import { createItemEditsService } from './item-edits.service.js';
import { createItemLocationService } from './item-location.service.js';
import { createItemWriter } from './item-writer.js';
import { createItemWritesService } from './item-writes.service.js';
import { createItemsRepository } from './items.repository.js';
import { createItemsService } from './items.service.js';
import { createReviewRepository } from './review/review.repository.js';
import { createReviewService } from './review/review.service.js';
import { bindWriteRepositories } from './write-repositories.js';

/** What the item aggregate needs from the rest: the database, the projects it lives in, the audit and event outbox. */
export interface ItemsModuleDeps {
  db: Kysely<Database>;
  transactions: TransactionRunner;
  projectsRepo: ProjectsRepository;
  projects: ProjectsService;
  vocabularyRepo: VocabularyRepository;
  audit: AuditService;
  events: EventOutbox;
  blobs: BlobStore;
  images: ImageConverter;
  clock: Clock;
  urls: { baseUrl: string };
  /** The bulk form's scope, the items of the project's tree a reader sees (in the worker pool once it runs). */
  visibleItems: ProjectsModule['visibleItems'];
}

/** Wires the item aggregate: its repositories, its one write path, and its commands and reads. */
export function createItemsModule(deps: ItemsModuleDeps) {
  const { db, projectsRepo, projects, audit, clock } = deps;
  const repositories = {
    items: createItemsRepository(db),
    edits: createItemEditsRepository(db),
    projects: projectsRepo,
    comments: createCommentsRepository(db),
    answers: createAnswersRepository(db),
    attachments: createAttachmentsRepository(db),
    review: createReviewRepository(db),
    vocabulary: deps.vocabularyRepo,
  };
  const items = createItemsService({ repo: repositories.items, projects: projectsRepo, urls: deps.urls });
  const path = createWritePath({
    transactions: deps.transactions,
    bind: bindWriteRepositories(repositories),
    audit,
    events: deps.events,
    clock,
  });
  const writer = createItemWriter({ path, items });
  const itemWrites = createItemWritesService(writer, clock);
  return {
    items,
    itemWrites,
    /** "Add item", "Edit item", moving an item in its checklist. */
    edits: createItemEditsService({ repo: repositories.edits, projects, items, writer, clock }),
    bulkChanges: createBulkChangesService({
      visibleItems: deps.visibleItems,
      projectsRepo,
      itemWrites: () => itemWrites,
      clock,
      edits: repositories.edits,
    }),
    comments: createCommentsService(writer, clock),
    answers: createAnswersService(repositories.answers, items, writer, clock),
    attachments: createAttachmentsService({
      repo: repositories.attachments,
      answers: repositories.answers,
      blobs: deps.blobs,
      images: deps.images,
      items,
      writer,
      clock,
      urls: deps.urls,
    }),
    review: createReviewService({
      repo: repositories.review,
      answers: repositories.answers,
      clock,
      projects,
      audit,
      writer,
      events: deps.events,
    }),
    itemLocations: createItemLocationService(writer, clock),
    itemDisputes: createItemDisputeService(writer, clock),
  };
}

export type ItemsModule = ReturnType<typeof createItemsModule>;

export type { ItemsService, ItemWorkspace } from './items.service.js';
export { type AnswerView, beforeAndAfter, type ItemCard } from './item-views.js';
export type { ItemWritesService, PlanningInput } from './item-writes.service.js';
export type { ItemEditsService, NewItemChoices } from './item-edits.service.js';
export { type BulkAbilities, type BulkChange, bulkAbilities, type BulkChangesService, type BulkOutcome } from './bulk-changes.service.js';
export type { CommentsService } from './comments/comments.service.js';
export type { AnswersService } from './answers/answers.service.js';
export { type AttachmentsService, type IncomingImage, photoDetailsOf, type PreparedImages } from './attachments/attachments.service.js';
export { sweepOrphanBlobs } from './attachments/orphan-sweep.js';
export type { ReviewService } from './review/review.service.js';
export type { ItemLocationService } from './item-location.service.js';
export type { ItemDisputeService } from './item-dispute.service.js';
/** Raising items in another feature's write (a template's checklist): the statements, bound to that write. */
export { createItemEditsRepository, type ItemEditsRepository } from './item-edits.repository.js';

/** The item reads alone (the worker threads' read-only composition, src/composition/offload-worker.ts). */
export function createItemReads(db: Kysely<Database>, projectsRepo: ProjectsRepository, urls: { baseUrl: string }) {
  return createItemsService({ repo: createItemsRepository(db), projects: projectsRepo, urls });
}
