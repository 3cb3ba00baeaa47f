import { type Config, workerConfig } from '../shared/config.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { type Db, openDatabase } from '../db/database.js';
import { createTransactionRunner } from '../db/group-commit.js';
import { migrateToLatest } from '../db/migrate.js';
import { type AdminModule, createAdminModule } from '../features/admin/index.js';
import type { MembersService } from '../features/admin/members.service.js';
import type { StructureService } from '../features/admin/structure.service.js';
import { createVocabularyRepository, type VocabularyRepository } from '../features/vocabulary/vocabulary.repository.js';
import { createTemplatesRepository } from '../features/templates/templates.repository.js';
import { createTemplatesService, type TemplatesService } from '../features/templates/templates.service.js';
import { createVocabularyService, type VocabularyService } from '../features/vocabulary/vocabulary.service.js';
import type { UsersAdminService } from '../features/admin/users-admin.service.js';
import { createAuditRepository } from '../features/audit/audit.repository.js';
import { type AuditService, createAuditService } from '../features/audit/audit.service.js';
import { createEventsRepository } from '../features/events/events.repository.js';
import { createEventsService, type EventsService } from '../features/events/events.service.js';
import {
  type AnswersService,
  type AttachmentsService,
  type BulkChangesService,
  type CommentsService,
  createItemEditsRepository,
  createItemsModule,
  type ItemDisputeService,
  type ItemEditsService,
  type ItemLocationService,
  type ItemsService,
  type ItemWritesService,
  type ReviewService,
} from '../features/items/index.js';
import { createWritePath, type WritePaths } from '../features/write-path/write-path.js';
import { createIdempotencyRepository } from '../features/idempotency/idempotency.repository.js';
import { createIdempotencyService, type IdempotencyService } from '../features/idempotency/idempotency.service.js';
import { createOAuthRepository } from '../features/oauth/oauth.repository.js';
import { createOAuthService, type OAuthService } from '../features/oauth/oauth.service.js';
import { createProjectsRepository } from '../features/projects/projects.repository.js';
import { createProjectsService, type ProjectsService } from '../features/projects/projects.service.js';
import { sharedRateLimitCounters } from '../features/rate-limit/rate-limit.repository.js';
import { createRateLimiter, type RateLimiter } from '../features/rate-limit/rate-limiter.js';
import { type CacheVersionsRepository, createCacheVersionsRepository } from '../features/caches/cache-versions.repository.js';
import { createResponseCache, type ResponseCache } from '../features/caches/response-cache.js';
import { offloadLanes } from '../features/offload/lanes.js';
import { createOffloadedReads, type OffloadedReads } from '../features/offload/offloaded-reads.js';
import { createWorkerPool, type WorkerPool } from '../features/offload/worker-pool.js';
import { createOffloadedReports, type Reports } from '../features/reports/report-offload.js';
import { createRetentionRepository } from '../features/retention/retention.repository.js';
import { createRetention, type Retention, retentionJob, retentionRules } from '../features/retention/retention.service.js';
import { createProjectSearch, type ProjectSearch } from '../features/search/project-search.js';
import { createSearchIndexer, type SearchIndexer } from '../features/search/search-indexer.js';
import { createSearchRepository } from '../features/search/search.repository.js';
import { createSearchService } from '../features/search/search.service.js';
import { createSessionsRepository } from '../features/sessions/sessions.repository.js';
import { createSessionsService, type SessionsService } from '../features/sessions/sessions.service.js';
import { createTokensRepository } from '../features/tokens/tokens.repository.js';
import { createTokensService, type TokensService } from '../features/tokens/tokens.service.js';
import { createUsersRepository } from '../features/users/users.repository.js';
import { createUsersService, type UsersService } from '../features/users/users.service.js';
import { createDeliveryWorker, type DeliveryWorker } from '../features/webhooks/delivery-worker.js';
import { createWebhooksRepository } from '../features/webhooks/webhooks.repository.js';
import { createWebhooksService, type WebhooksService } from '../features/webhooks/webhooks.service.js';
import { createWorklistsRepository } from '../features/worklists/worklists.repository.js';
import { type CachedDashboard, createCachedDashboard } from '../features/dashboard/dashboard-cache.js';
import { createDashboardService } from '../features/dashboard/dashboard.service.js';
import { createWorklistsService, type WorklistsService } from '../features/worklists/worklists.service.js';
import type { NotificationWorker } from '../features/notifications/notification-worker.js';
import { createNotificationsModule, type NotificationsModule } from '../features/notifications/index.js';
import type { NotificationsService } from '../features/notifications/notifications.service.js';
import type { CompaniesService } from '../features/companies/companies.service.js';
import type { CompanyPacksService } from '../features/companies/company-packs.service.js';
import { createCompaniesModule } from '../features/companies/index.js';
import type { InvitationsService } from '../features/companies/invitations.service.js';
import { createPlansModule } from '../features/plans/index.js';
import type { PlanUploads } from '../features/plans/plan-uploads.js';
import type { PlanViews } from '../features/plans/plan-views.js';
import type { PlansService } from '../features/plans/plans.service.js';
import { createImageConverter, type ImageConverter } from '../imaging/images.js';
import { createJobRunner, type JobRunner } from '../jobs/job-runner.js';
import { createJobStore } from '../jobs/job-store.js';
import { createMetrics, type Metrics } from '../metrics/prometheus.js';
import { type BlobStore, openBlobStore } from '../storage/index.js';

/**
 * Everything a request handler, a CLI command or a background job may use: built once per process by
 * createContext() and passed explicitly (to buildApp, to the commands); never looked up from a request.
 */
export interface AppContext {
  config: Config;
  clock: Clock;
  db: Db;
  blobs: BlobStore;
  images: ImageConverter;
  users: UsersService;
  tokens: TokensService;
  audit: AuditService;
  events: EventsService;
  projects: ProjectsService;
  items: ItemsService;
  projectSearch: ProjectSearch;
  /** Feeds SQLite's FTS5 outside the writes' transactions (migration 010); started by the server. */
  searchIndexer: SearchIndexer;
  worklists: WorklistsService;
  /** The dashboard's figures (docs/design.md §23): computed in the worker pool, cached against the data's version. */
  dashboard: CachedDashboard;
  /** The project page's bulk changes of selected items (docs/design.md §14). */
  bulkChanges: BulkChangesService;
  itemWrites: ItemWritesService;
  /** "Add item", "Edit item", moving an item within its checklist (docs/design.md §14). */
  itemEdits: ItemEditsService;
  comments: CommentsService;
  answers: AnswersService;
  idempotency: IdempotencyService;
  /** null when RATE_LIMIT_PER_MINUTE is 0. */
  rateLimiter: RateLimiter | null;
  /** docs/design.md §12: Punchlist is the authorization server of v1 and /mcp; its access tokens are API tokens. */
  oauth: OAuthService;
  /** Per address, on registration and on the token endpoint; null when set to 0. */
  oauthRateLimits: { register: RateLimiter | null; token: RateLimiter | null };
  attachments: AttachmentsService;
  sessions: SessionsService;
  retention: Retention;
  /**
   * The background jobs (src/jobs, STYLE.md 14): notifications, their emails and scheduled pass, webhook deliveries,
   * the search indexer, retention; started by the server once it listens (main.ts), stopped by close().
   */
  jobs: JobRunner;
  /** null unless METRICS_ENABLED. */
  metrics: Metrics | null;
  webhooks: WebhooksService;
  webhookWorker: DeliveryWorker;
  review: ReviewService;
  structure: StructureService;
  vocabulary: VocabularyService;
  templates: TemplatesService;
  members: MembersService;
  usersAdmin: UsersAdminService;
  /** docs/design.md §20: disputes of items by their executors and their resolution by managers. */
  itemDisputes: ItemDisputeService;
  /** docs/design.md §20: the workspace's companies and a person's company. */
  companies: CompaniesService;
  /** docs/design.md §20: invitations from the project page. */
  invitations: InvitationsService;
  /** docs/design.md §20: "Send to companies". */
  companyPacks: CompanyPacksService;
  /** docs/design.md §15: notifications in the web, and by email when SMTP_URL is set. */
  notifications: NotificationsService;
  /** Started by the server: events → notifications (one node), the scheduled pass, the email sender. */
  notificationWorker: NotificationWorker;
  /**
   * The worker threads that run heavy reads off the event loop (STYLE.md habit 14): each with its own read-only
   * connections (src/composition/offload-worker.ts), running reports and v1's trees and searches side by side, each kind
   * in its lane (features/offload/lanes.ts). Started at the first job, or by the server once it listens;
   * close() stops them.
   */
  offload: WorkerPool;
  /** docs/design.md §17: a project's punch list as CSV or PDF, made in the worker pool and streamed (web, v1, CLI). */
  reports: Reports;
  /** v1's project trees and searches, in the worker pool's read lane (beside a report, not behind it). */
  offloadedReads: OffloadedReads;
  /** docs/design.md §10: the versions that validate cached answers, and the answers (null: RESPONSE_CACHE_MB=0). */
  cacheVersions: CacheVersionsRepository;
  responseCache: ResponseCache | null;
  /** docs/design.md §19: a project's plans, their sheets and tiles, and the pins the reader sees. */
  plans: PlansService;
  /** Uploads of plans and of their new versions, rendered in a thread of their own, progress polled. */
  planUploads: PlanUploads;
  /** What the web's plan pages read: pins with their items' texts, filters, an item's place. */
  planViews: PlanViews;
  /** An item's place on a plan: place, move, remove, through the item's write path. */
  itemLocations: ItemLocationService;
  /** Stops the background jobs, writes the queued audit records, then closes the database. */
  close(): Promise<void>;
}

/**
 * What a caller (a test, the CLI) gives instead of what createContext() would build: the infrastructure only
 * (a replaced `clock` is the clock of every service); every service is built from the config on top of it.
 */
export type ContextOverrides = Partial<Pick<AppContext, 'clock' | 'db' | 'blobs' | 'images' | 'offload' | 'jobs'>> & {
  /** Apply pending migrations at start (default true); a second node of a test skips them. */
  migrate?: boolean;
};

/** How often each node deletes expired rows (docs/operations.md, "Retention"). */
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/** A JSON log line of a failure in the background, in pino's shape (the request logger is not theirs). */
const logError = (msg: string) => (error: unknown) =>
  process.stderr.write(`${JSON.stringify({ level: 50, time: Date.now(), msg, err: String(error) })}\n`);

/** The composition root: every module is built here, explicitly, from the config, in the order they depend. */
export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const base = await infrastructure(config, overrides);
  const core = coreServices(config, base);
  const { db, clock, jobs } = base;
  const { projects } = core;
  const vocabularyRepo = createVocabularyRepository(db.kysely);
  const itemsModule = createItemsModule({ ...base, ...core, db: db.kysely, vocabularyRepo, urls: config });
  core.itemAccess.current = itemsModule.items;
  const admin = createAdminModule({ ...base, ...core, db: db.kysely });
  const notifications = createNotificationsModule({
    db: db.kysely,
    items: itemsModule.items,
    clock,
    jobs,
    eventsRepo: core.eventsRepo,
    onCommitted: core.events.onCommitted,
    smtp: config.smtpUrl ? { url: config.smtpUrl, from: config.mailFrom, baseUrl: config.baseUrl } : null,
    enabled: config.notificationsEnabled,
    renderMessage: (email) => companies.renderMail(email),
    onError: logError,
  });
  const companies = createCompaniesModule({
    db: db.kysely,
    projects,
    clock,
    baseUrl: config.baseUrl,
    mailQueue: notifications.mailQueue,
    emailEnabled: config.smtpUrl !== null,
    onQueued: notifications.wakeSender,
    reports: () => ctx.reports,
  });
  const plans = createPlansModule({ ...base, ...core, db: db.kysely, limits: config.plans, urls: config });
  const reads = readServices(config, base, core, itemsModule.items);
  const webhooks = webhookServices(config, base, core, notifications);
  const { edits: itemEdits, ...itemServices } = itemsModule;
  const ctx: AppContext = {
    config,
    ...base,
    ...pick(core, ['users', 'sessions', 'tokens', 'audit', 'events', 'projects', 'idempotency', 'rateLimiter', 'oauthRateLimits']),
    ...reads,
    ...webhooks,
    ...itemServices,
    itemEdits,
    ...pick(admin, ['structure', 'members', 'usersAdmin']),
    ...pick(companies, ['companies', 'invitations', 'companyPacks']),
    ...plans,
    notifications: notifications.notifications,
    notificationWorker: notifications.worker,
    oauth: createOAuthService({
      repo: createOAuthRepository(db.kysely),
      tokens: core.tokens,
      clock,
      urls: config,
      onConnected: notifications.applicationConnected,
    }),
    ...vocabularyServices(db, core, admin, vocabularyRepo),
    metrics: config.metricsEnabled
      ? createMetrics({
          auditQueueDepth: () => core.audit.pending,
          webhookDeliveriesPending: () => webhooks.webhookWorker.pending,
          jobs: () => jobs.stats(),
          emails: () => notifications.emailSender?.stats() ?? { sent: 0, failed: 0, waiting: 0 },
          ...(reads.responseCache ? { responseCache: () => reads.responseCache!.stats } : {}),
        })
      : null,
    async close() {
      // First: the workers' own connections close before the database they read; running plan uploads stop.
      await base.offload.close();
      await plans.planUploads.close();
      // Each job ends the run under way (deliveries and emails in flight included) and gives its lease back.
      await jobs.stop();
      // The audit records still queued (reads of the last 100 ms) are written before the database closes.
      core.events.close();
      await core.audit.close();
      await db.close();
    },
  };
  return ctx;
}

/** The database (migrated), the blob store, the image converter, the job runner and the worker threads. */
async function infrastructure(config: Config, o: ContextOverrides) {
  const clock = o.clock ?? systemClock;
  const db: Db = o.db ?? openDatabase(config.databaseUrl, { poolSize: config.databasePoolSize });
  if (o.migrate !== false) await migrateToLatest(db.kysely);
  // Every background job has the same loop, lease, retries and metrics; a failed run is logged and retried.
  const jobs =
    o.jobs ??
    createJobRunner({
      store: createJobStore(db.kysely),
      clock,
      onError: (error, job) => logError(`${job}: a run failed; retrying with backoff`)(error),
    });
  const offload =
    o.offload ??
    createWorkerPool({
      // .ts under tsx (tests, the CLI), .js when run from dist/ (scripts/build.mjs).
      entry: new URL(`./offload-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url),
      size: config.workerThreads,
      lanes: offloadLanes(config),
      data: workerConfig(config),
      onError: logError('worker thread failed'),
    });
  return {
    clock,
    db,
    blobs: o.blobs ?? openBlobStore(config.storageUrl, config.s3Credentials),
    images: o.images ?? createImageConverter(),
    jobs,
    offload,
  };
}

type Infrastructure = Awaited<ReturnType<typeof infrastructure>>;

/**
 * People, projects, the audit log and the event outbox, and the write paths every module builds on. The event
 * feed asks the item aggregate, built after it, whether a reader sees an item (`itemAccess`).
 */
function coreServices(config: Config, { db, clock }: Infrastructure) {
  const projectsRepo = createProjectsRepository(db.kysely);
  const projects = createProjectsService(projectsRepo);
  const sessions = createSessionsService(createSessionsRepository(db), clock);
  // Writes insert their audit record inside their own transaction; the records of everything else are
  // batched (features/audit/audit-batcher.ts) and written by close() at the latest.
  const audit = createAuditService(createAuditRepository(db.kysely));
  const eventsRepo = createEventsRepository(db.kysely);
  const itemAccess: { current: Pick<ItemsService, 'access'> | null } = { current: null };
  const events = createEventsService({
    repo: eventsRepo,
    projectsRepo,
    projects,
    items: { access: (actor, itemId) => itemAccess.current!.access(actor, itemId) },
  });
  // One transaction runner (group commit on SQLite) under every module's write path (features/write-path/).
  const transactions = createTransactionRunner(db.kysely, db.dialect);
  const writePaths: WritePaths = (bind) => createWritePath({ transactions, bind, audit, events, clock });
  const counters = () => sharedRateLimitCounters(db);
  return {
    clock,
    projectsRepo,
    projects,
    users: createUsersService(createUsersRepository(db.kysely), clock),
    sessions,
    tokens: createTokensService(createTokensRepository(db.kysely), clock, projects),
    audit,
    eventsRepo,
    events,
    itemAccess,
    transactions,
    writePaths,
    idempotency: createIdempotencyService(createIdempotencyRepository(db.kysely), clock),
    rateLimiter: createRateLimiter(config.rateLimitPerMinute, counters()),
    oauthRateLimits: {
      register: createRateLimiter(config.oauthRateLimits.registerPerMinute, counters()),
      token: createRateLimiter(config.oauthRateLimits.tokenPerMinute, counters()),
    },
  };
}

type CoreServices = ReturnType<typeof coreServices>;

/** Search, worklists, the dashboard, reports, the response cache, retention: the reads over many items. */
function readServices(config: Config, { db, clock, jobs, offload }: Infrastructure, core: CoreServices, items: ItemsService) {
  const { projects, projectsRepo } = core;
  const searchRepo = createSearchRepository(db.kysely, db.dialect);
  const projectSearch = createProjectSearch(projects, items, createSearchService(searchRepo, db.dialect));
  const worklistsRepo = createWorklistsRepository(db.kysely);
  const inlineDashboard = createDashboardService({ projects, repo: worklistsRepo, clock });
  const responseCache = createResponseCache(config.responseCacheMb * 1024 * 1024);
  const cacheVersions = createCacheVersionsRepository(db.kysely);
  const offloadedReads = createOffloadedReads(offload, clock);
  const retention = createRetention({ repo: createRetentionRepository(db), clock, rules: retentionRules(config) });
  jobs.job(
    retentionJob(retention, {
      everyMs: RETENTION_INTERVAL_MS,
      // The first pass a minute or two after start, staggered so that nodes started together spread out.
      firstAfterMs: 60_000 + Math.random() * 60_000,
      onRun: (deleted) => {
        if (Object.values(deleted).some((n) => n > 0))
          process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), msg: 'retention: expired rows deleted', deleted })}\n`);
      },
    }),
  );
  return {
    projectSearch,
    // Feeds SQLite's FTS5 outside the writes' transactions (migration 010).
    searchIndexer: createSearchIndexer(searchRepo, db.dialect, jobs),
    worklists: createWorklistsService({ repo: worklistsRepo, projects, projectsRepo, search: projectSearch, clock }),
    dashboard: createCachedDashboard({
      // In the worker pool once it runs (as the web's heavy reads, web-plugin.ts); inline before.
      reads: () => (offload.stats().workers > 0 ? offloadedReads.dashboard : inlineDashboard),
      projects,
      cache: responseCache,
      treeVersion: (projectId) => cacheVersions.tree(projectId),
      lastEventId: () => core.eventsRepo.lastId(),
      clock,
    }),
    reports: createOffloadedReports({ projects, pool: offload, clock }),
    offloadedReads,
    cacheVersions,
    responseCache,
    retention,
  };
}

/** Webhooks: the endpoints people register and the deliveries to them (every node). */
function webhookServices(config: Config, { db, clock, jobs }: Infrastructure, core: CoreServices, notifications: NotificationsModule) {
  const repo = createWebhooksRepository(db.kysely);
  const { events, eventsRepo, projects } = core;
  return {
    webhooks: createWebhooksService({ repo, eventsRepo, events, projects, clock, allowPrivate: config.webhookAllowPrivate }),
    webhookWorker: createDeliveryWorker(
      { repo, events, clock, jobs },
      { allowPrivate: config.webhookAllowPrivate, onDisabled: notifications.webhookDisabled },
    ),
  };
}

/** The project's vocabulary and templates (docs/design.md §21): each change a structural write of the project. */
function vocabularyServices(db: Db, core: CoreServices, admin: AdminModule, vocabularyRepo: VocabularyRepository) {
  const { projects, projectsRepo, writePaths, clock } = core;
  const templatesRepo = createTemplatesRepository(db.kysely);
  const itemEditsRepo = createItemEditsRepository(db.kysely);
  return {
    vocabulary: createVocabularyService({
      repo: vocabularyRepo,
      projects,
      path: writePaths((trx) => ({ vocabulary: vocabularyRepo.bind(trx), projects: projectsRepo.bind(trx) })),
      clock,
    }),
    templates: createTemplatesService({
      repo: templatesRepo,
      vocabularyRepo,
      projectsRepo,
      projects,
      structure: admin.structure,
      path: writePaths((trx) => ({
        structure: admin.structureRepo.bind(trx),
        projects: projectsRepo.bind(trx),
        items: itemEditsRepo.bind(trx),
        vocabulary: vocabularyRepo.bind(trx),
        templates: templatesRepo.bind(trx),
      })),
      clock,
    }),
  };
}

/** The named members of `from`: what the context exposes of a module (its wiring stays in the module). */
function pick<T, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, from[key]])) as Pick<T, K>;
}
