import type { Config } from './config.js';
import { type Clock, systemClock } from './clock.js';
import { type Db, openDatabase } from './db/database.js';
import { createTransactionRunner } from './db/group-commit.js';
import { migrateToLatest } from './db/migrate.js';
import { createAttachmentsService } from './features/attachments/attachments.service.js';
import { createAnswersService } from './features/answers/answers.service.js';
import { createMembersService } from './features/admin/members.service.js';
import { createStructureService } from './features/admin/structure.service.js';
import { createUsersAdminService } from './features/admin/users-admin.service.js';
import { createDeliveryWorker } from './features/webhooks/delivery-worker.js';
import { createWebhooksRepository } from './features/webhooks/webhooks.repository.js';
import { createWebhooksService } from './features/webhooks/webhooks.service.js';
import { createEventsRepository } from './features/events/events.repository.js';
import { createEventsService } from './features/events/events.service.js';
import { createItemWriter } from './features/items/item-transaction.js';
import { createAuditService } from './features/audit/audit.service.js';
import { createCommentsService } from './features/comments/comments.service.js';
import { createIdempotencyService } from './features/idempotency/idempotency.service.js';
import { createItemWritesService } from './features/items/item-writes.service.js';
import { createItemsService } from './features/items/items.service.js';
import { createOAuthRepository } from './features/oauth/oauth.repository.js';
import { createOAuthService } from './features/oauth/oauth.service.js';
import { createProjectsRepository } from './features/projects/projects.repository.js';
import { createProjectsService } from './features/projects/projects.service.js';
import { createRateLimiter } from './features/rate-limit/rate-limiter.js';
import { createRetention, retentionRules } from './features/retention/retention.service.js';
import { createReviewService } from './features/review/review.service.js';
import { createProjectSearch } from './features/search/project-search.js';
import { createSearchIndexer } from './features/search/search-indexer.js';
import { createSearchRepository } from './features/search/search.repository.js';
import { createSearchService } from './features/search/search.service.js';
import { createSessionsService } from './features/sessions/sessions.service.js';
import { createTokensService } from './features/tokens/tokens.service.js';
import { createWorklistsRepository } from './features/worklists/worklists.repository.js';
import { createWorklistsService } from './features/worklists/worklists.service.js';
import { createUsersService } from './features/users/users.service.js';
import { createImageConverter } from './imaging/images.js';
import { createMetrics } from './metrics/prometheus.js';
import { openBlobStore } from './storage/index.js';

/** The composition root: every dependency is built here, explicitly, from the config. */
export async function createContext(config: Config, options: { clock?: Clock; migrate?: boolean } = {}) {
  const clock = options.clock ?? systemClock;
  const db: Db = openDatabase(config.databaseUrl, { poolSize: config.databasePoolSize });
  if (options.migrate !== false) await migrateToLatest(db.kysely);
  const projectsRepo = createProjectsRepository(db.kysely);
  const blobs = openBlobStore(config.storageUrl, config.s3Credentials);
  const images = createImageConverter();
  const items = createItemsService(db.kysely, projectsRepo, config);
  const users = createUsersService(db.kysely, clock);
  const projects = createProjectsService(projectsRepo);
  const sessions = createSessionsService(db.kysely, clock);
  // Writes insert their audit record inside their own transaction; the records of everything else are
  // batched (features/audit/audit-batcher.ts) and written by close() at the latest.
  const audit = createAuditService(db.kysely);
  const tokens = createTokensService(db.kysely, clock);
  const eventsRepo = createEventsRepository(db.kysely);
  const events = createEventsService({ repo: eventsRepo, projectsRepo, projects, items });
  const itemWriter = createItemWriter(createTransactionRunner(db.kysely, db.dialect), audit, events, clock);
  const searchRepo = createSearchRepository(db.kysely, db.dialect);
  const projectSearch = createProjectSearch(projects, items, createSearchService(searchRepo, db.dialect));
  // Started by the server (main.ts): feeds SQLite's FTS5 outside the writes' transactions (migration 010).
  const searchIndexer = createSearchIndexer(searchRepo, db.dialect, (error) =>
    process.stderr.write(`${JSON.stringify({ level: 50, time: Date.now(), msg: 'search indexing failed', err: String(error) })}\n`),
  );
  // Started by the server only (main.ts), on every node; close() stops it before the database closes.
  const webhooksRepo = createWebhooksRepository(db.kysely);
  // Started by the server only (main.ts), on every node: deliveries to webhook endpoints.
  const webhookWorker = createDeliveryWorker({ repo: webhooksRepo, events, clock }, { allowPrivate: config.webhookAllowPrivate });
  const retention = createRetention({ db: db.kysely, dialect: db.dialect, clock, rules: retentionRules(config) });
  const ctx = {
    config,
    clock,
    db,
    blobs,
    images,
    users,
    tokens,
    audit,
    events,
    projects,
    items,
    projectSearch,
    searchIndexer,
    worklists: createWorklistsService({ repo: createWorklistsRepository(db.kysely), projects, projectsRepo, search: projectSearch, clock }),
    itemWrites: createItemWritesService(db.kysely, items, itemWriter, clock),
    comments: createCommentsService(db.kysely, items, itemWriter, clock),
    answers: createAnswersService(db.kysely, items, itemWriter, clock),
    idempotency: createIdempotencyService(db.kysely, clock),
    rateLimiter: createRateLimiter(config.rateLimitPerMinute, db.kysely, db.dialect),
    // DESIGN.md §12: Punchlist is the authorization server of v1 and /mcp; its access tokens are API tokens.
    oauth: createOAuthService({ repo: createOAuthRepository(db.kysely), tokens, clock, urls: config }),
    oauthRateLimits: {
      register: createRateLimiter(config.oauthRateLimits.registerPerMinute, db.kysely, db.dialect),
      token: createRateLimiter(config.oauthRateLimits.tokenPerMinute, db.kysely, db.dialect),
    },
    attachments: createAttachmentsService({ db: db.kysely, blobs, images, items, writer: itemWriter, clock, urls: config }),
    sessions,
    retention,
    metrics: config.metricsEnabled ? createMetrics({ auditQueueDepth: () => audit.pending, webhookDeliveriesPending: () => webhookWorker.pending }) : null,
    webhooks: createWebhooksService({ repo: webhooksRepo, eventsRepo, events, projects, clock, allowPrivate: config.webhookAllowPrivate }),
    webhookWorker,
    review: createReviewService({ db: db.kysely, clock, items, projects, audit, writer: itemWriter, events }),
    structure: createStructureService({ db: db.kysely, clock }),
    members: createMembersService({ db: db.kysely, clock }),
    usersAdmin: createUsersAdminService({ db: db.kysely, users, sessions, tokens }),
    async close() {
      await retention.stop();
      await searchIndexer.stop();
      await webhookWorker.stop();
      // The audit records still queued (reads of the last 100 ms) are written before the database closes.
      events.close();
      await audit.close();
      await db.close();
    },
  };
  return ctx;
}

export type AppContext = Awaited<ReturnType<typeof createContext>>;
