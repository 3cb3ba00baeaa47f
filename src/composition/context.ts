import type { Config } from '../shared/config.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { type Db, openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { type AdminModule, createAdminModule } from '../features/admin/index.js';
import { type AuditModule, createAuditModule } from '../features/audit/index.js';
import { type CachesModule, createCachesModule } from '../features/caches/index.js';
import { type CompaniesModule, createCompaniesModule } from '../features/companies/index.js';
import { createDashboardModule, type DashboardModule } from '../features/dashboard/index.js';
import { createEventsModule, type EventsModule } from '../features/events/index.js';
import { createIdempotencyModule, type IdempotencyModule } from '../features/idempotency/index.js';
import {
  type AnswersService,
  type AttachmentsService,
  type BulkChangesService,
  type CommentsService,
  createItemsModule,
  type ItemDisputeService,
  type ItemEditsService,
  type ItemLocationService,
  type ItemsService,
  type ItemWritesService,
  type ReviewService,
} from '../features/items/index.js';
import { createNotificationsModule, type NotificationsModule } from '../features/notifications/index.js';
import { createOAuthModule, type OAuthModule } from '../features/oauth/index.js';
import { createOffloadModule, createOffloadPool, type OffloadModule, type WorkerPool } from '../features/offload/index.js';
import { createPlansModule, type PlansModule } from '../features/plans/index.js';
import { createProjectsModule, type ProjectsModule } from '../features/projects/index.js';
import { createRateLimitModule, type RateLimitModule } from '../features/rate-limit/index.js';
import { createReportsModule, type ReportsModule } from '../features/reports/index.js';
import { createRetentionModule, type RetentionModule } from '../features/retention/index.js';
import { createSearchModule, type SearchModule } from '../features/search/index.js';
import { createSessionsModule, type SessionsModule } from '../features/sessions/index.js';
import { createTemplatesModule, type TemplatesModule } from '../features/templates/index.js';
import { createTokensModule, type TokensModule } from '../features/tokens/index.js';
import { createUsersModule, type UsersModule } from '../features/users/index.js';
import { createVocabularyModule, type VocabularyModule } from '../features/vocabulary/index.js';
import { createWebhooksModule, type WebhooksModule } from '../features/webhooks/index.js';
import { createWorklistsModule, type WorklistsModule } from '../features/worklists/index.js';
import { createWritePathModule } from '../features/write-path/index.js';
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
  users: UsersModule['users'];
  tokens: TokensModule['tokens'];
  audit: AuditModule['audit'];
  events: EventsModule['events'];
  projects: ProjectsModule['projects'];
  items: ItemsService;
  projectSearch: SearchModule['projectSearch'];
  /** Feeds SQLite's FTS5 outside the writes' transactions (migration 010); started by the server. */
  searchIndexer: ReturnType<SearchModule['indexerOn']>;
  worklists: WorklistsModule['worklists'];
  /** The dashboard's figures (docs/design.md §23): computed in the worker pool, cached against the data's version. */
  dashboard: ReturnType<DashboardModule['cachedDashboard']>;
  /** The project page's bulk changes of selected items (docs/design.md §14). */
  bulkChanges: BulkChangesService;
  itemWrites: ItemWritesService;
  /** "Add item", "Edit item", moving an item within its checklist (docs/design.md §14). */
  itemEdits: ItemEditsService;
  comments: CommentsService;
  answers: AnswersService;
  idempotency: IdempotencyModule['idempotency'];
  /** null when RATE_LIMIT_PER_MINUTE is 0. */
  rateLimiter: RateLimitModule['rateLimiter'];
  /** docs/design.md §12: Punchlist is the authorization server of v1 and /mcp; its access tokens are API tokens. */
  oauth: OAuthModule['oauth'];
  /** Per address, on registration and on the token endpoint; null when set to 0. */
  oauthRateLimits: RateLimitModule['oauthRateLimits'];
  attachments: AttachmentsService;
  sessions: SessionsModule['sessions'];
  retention: RetentionModule['retention'];
  /**
   * The background jobs (src/jobs, STYLE.md 14): notifications, their emails and scheduled pass, webhook deliveries,
   * the search indexer, retention; started by the server once it listens (main.ts), stopped by close().
   */
  jobs: JobRunner;
  /** null unless METRICS_ENABLED. */
  metrics: Metrics | null;
  webhooks: WebhooksModule['webhooks'];
  webhookWorker: WebhooksModule['webhookWorker'];
  review: ReviewService;
  structure: AdminModule['structure'];
  vocabulary: VocabularyModule['vocabulary'];
  templates: TemplatesModule['templates'];
  members: AdminModule['members'];
  usersAdmin: AdminModule['usersAdmin'];
  /** docs/design.md §20: disputes of items by their executors and their resolution by managers. */
  itemDisputes: ItemDisputeService;
  /** docs/design.md §20: the workspace's companies and a person's company. */
  companies: CompaniesModule['companies'];
  /** docs/design.md §20: invitations from the project page. */
  invitations: CompaniesModule['invitations'];
  /** docs/design.md §20: "Send to companies". */
  companyPacks: CompaniesModule['companyPacks'];
  /** docs/design.md §15: notifications in the web, and by email when SMTP_URL is set. */
  notifications: NotificationsModule['notifications'];
  /** Started by the server: events → notifications (one node), the scheduled pass, the email sender. */
  notificationWorker: NotificationsModule['worker'];
  /**
   * The worker threads that run heavy reads off the event loop (STYLE.md habit 14): each with its own read-only
   * connections (src/composition/offload-worker.ts), running reports and v1's trees and searches side by side, each kind
   * in its lane (features/offload/lanes.ts). Started at the first job, or by the server once it listens;
   * close() stops them.
   */
  offload: WorkerPool;
  /** docs/design.md §17: a project's punch list as CSV or PDF, made in the worker pool and streamed (web, v1, CLI). */
  reports: ReturnType<ReportsModule['offloadedOn']>;
  /** v1's project trees and searches, in the worker pool's read lane (beside a report, not behind it). */
  offloadedReads: OffloadModule['offloadedReads'];
  /** docs/design.md §10: the versions that validate cached answers, and the answers (null: RESPONSE_CACHE_MB=0). */
  cacheVersions: CachesModule['cacheVersions'];
  responseCache: CachesModule['responseCache'];
  /** docs/design.md §19: a project's plans, their sheets and tiles, and the pins the reader sees. */
  plans: PlansModule['plans'];
  /** Uploads of plans and of their new versions, rendered in a thread of their own, progress polled. */
  planUploads: PlansModule['planUploads'];
  /** What the web's plan pages read: pins with their items' texts, filters, an item's place. */
  planViews: PlansModule['planViews'];
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

/** A JSON log line of a failure in the background, in pino's shape (the request logger is not theirs). */
const logError = (msg: string) => (error: unknown) =>
  process.stderr.write(`${JSON.stringify({ level: 50, time: Date.now(), msg, err: String(error) })}\n`);

/**
 * The composition root: every module is built here, explicitly, from the config, in the order they depend, by its
 * own `create<Name>Module(deps)` (each feature's index.ts); the worker threads' root builds its reads by the same.
 */
export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const base = await infrastructure(config, overrides);
  const core = coreServices(config, base);
  const { db, clock, jobs } = base;
  const { projects } = core;
  const pool = pooledReads(base);
  const { vocabulary, itemsModule } = itemAggregate(config, base, core, pool);
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
  const reads = readServices(config, base, core, itemsModule.items, pool);
  const webhooks = createWebhooksModule({ ...core, db: db.kysely, jobs, ...webhookOptions(config, notifications) });
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
    ...createOAuthModule({ db: db.kysely, tokens: core.tokens, clock, urls: config, onConnected: notifications.applicationConnected }),
    vocabulary: vocabulary.vocabulary,
    ...createTemplatesModule({ ...core, db: db.kysely, vocabularyRepo: vocabulary.vocabularyRepo, admin }),
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
    createOffloadPool({
      config,
      // .ts under tsx (tests, the CLI), .js when run from dist/ (scripts/build.mjs).
      entry: new URL(`./offload-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url),
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
  const projectsModule = createProjectsModule({ db: db.kysely });
  const { projects } = projectsModule;
  const { audit } = createAuditModule({ db: db.kysely });
  const itemAccess: { current: Pick<ItemsService, 'access'> | null } = { current: null };
  const { events, eventsRepo } = createEventsModule({
    ...projectsModule,
    db: db.kysely,
    items: { access: (actor, itemId) => itemAccess.current!.access(actor, itemId) },
  });
  return {
    clock,
    ...projectsModule,
    ...createUsersModule({ db: db.kysely, clock }),
    ...createSessionsModule({ db, clock }),
    ...createTokensModule({ db: db.kysely, clock, projects }),
    audit,
    eventsRepo,
    events,
    itemAccess,
    // One transaction runner (group commit on SQLite) under every module's write path (features/write-path/).
    ...createWritePathModule({ db, audit, events, clock }),
    ...createIdempotencyModule({ db: db.kysely, clock }),
    ...createRateLimitModule({ db, perMinute: config.rateLimitPerMinute, oauth: config.oauthRateLimits }),
  };
}

type CoreServices = ReturnType<typeof coreServices>;

/** The reads that run in the worker pool once it runs (as the web's heavy reads, web-plugin.ts); inline before. */
function pooledReads({ offload, clock }: Infrastructure) {
  return { ...createOffloadModule({ pool: offload, clock }), pooled: () => offload.stats().workers > 0 };
}

type PooledReads = ReturnType<typeof pooledReads>;

/** The item aggregate, and the vocabulary whose values it writes; the event feed asks it who sees an item. */
function itemAggregate(config: Config, base: Infrastructure, core: CoreServices, { offloadedReads, pooled }: PooledReads) {
  const vocabulary = createVocabularyModule({ ...core, db: base.db.kysely });
  const itemsModule = createItemsModule({
    ...base,
    ...core,
    db: base.db.kysely,
    vocabularyRepo: vocabulary.vocabularyRepo,
    urls: config,
    // The bulk form's scope is the project's tree as the reader sees it: a heavy read like the project page's.
    visibleItems: (actor, projectId) => (pooled() ? offloadedReads : core).visibleItems(actor, projectId),
  });
  core.itemAccess.current = itemsModule.items;
  return { vocabulary, itemsModule };
}

/** Deliveries to private addresses (a test's receiver), and the owner told when an endpoint was disabled. */
function webhookOptions(config: Config, notifications: NotificationsModule) {
  return { allowPrivate: config.webhookAllowPrivate, onDisabled: notifications.webhookDisabled };
}

/** Search, worklists, the dashboard, reports, the response cache, retention: the reads over many items. */
function readServices(
  config: Config,
  { db, clock, jobs, offload }: Infrastructure,
  core: CoreServices,
  items: ItemsService,
  pool: PooledReads,
) {
  const { projects, projectsRepo } = core;
  const search = createSearchModule({ db, projects, items });
  const worklists = createWorklistsModule({ db: db.kysely, projects, projectsRepo, search: search.projectSearch, clock });
  const caches = createCachesModule({ db: db.kysely, responseCacheBytes: config.responseCacheMb * 1024 * 1024 });
  const dashboard = createDashboardModule({ projects, itemDates: worklists.itemDates, clock });
  const reports = createReportsModule({ db: db.kysely, projects, worklistsAt: worklists.worklistsAt, config });
  const { retention } = createRetentionModule({ db, clock, jobs, keep: config });
  return {
    projectSearch: search.projectSearch,
    searchIndexer: search.indexerOn(jobs),
    worklists: worklists.worklists,
    dashboard: dashboard.cachedDashboard({
      offloaded: () => (pool.pooled() ? pool.offloadedReads.dashboard : null),
      cache: caches.responseCache,
      treeVersion: (projectId) => caches.cacheVersions.tree(projectId),
      lastEventId: () => core.eventsRepo.lastId(),
    }),
    reports: reports.offloadedOn(offload, clock),
    offloadedReads: pool.offloadedReads,
    ...caches,
    retention,
  };
}

/** The named members of `from`: what the context exposes of a module (its wiring stays in the module). */
function pick<T, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, from[key]])) as Pick<T, K>;
}
