import { type Config, workerConfig } from '../shared/config.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { type Db, openDatabase } from '../db/database.js';
import type { Transaction } from 'kysely';
import { createTransactionRunner } from '../db/group-commit.js';
import type { Database } from '../db/tables.js';
import { migrateToLatest } from '../db/migrate.js';
import { createMembersRepository } from '../features/admin/members.repository.js';
import { createMembersService, type MembersService } from '../features/admin/members.service.js';
import { createStructureRepository } from '../features/admin/structure.repository.js';
import { createStructureService, type StructureService } from '../features/admin/structure.service.js';
import { createVocabularyRepository } from '../features/vocabulary/vocabulary.repository.js';
import { createTemplatesRepository } from '../features/templates/templates.repository.js';
import { createTemplatesService, type TemplatesService } from '../features/templates/templates.service.js';
import { createVocabularyService, type VocabularyService } from '../features/vocabulary/vocabulary.service.js';
import { createUsersAdminService, type UsersAdminService } from '../features/admin/users-admin.service.js';
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
import { createWritePath } from '../features/write-path/write-path.js';
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
import { createSmtpMailer } from '../features/mail/mailer.js';
import { createEmailSender, type EmailSender } from '../features/notifications/email-sender.js';
import { createNotificationWorker, type NotificationWorker } from '../features/notifications/notification-worker.js';
import { createNotificationsRepository } from '../features/notifications/notifications.repository.js';
import { createNotificationsService, type NotificationsService } from '../features/notifications/notifications.service.js';
import { quoted } from '../features/notifications/notification-kinds.js';
import { message } from '../i18n/i18n.js';
import { createCompaniesRepository } from '../features/companies/companies.repository.js';
import { createCompaniesService, type CompaniesService } from '../features/companies/companies.service.js';
import { createCompanyMail } from '../features/companies/company-mail.js';
import { createCompanyPacksRepository } from '../features/companies/company-packs.repository.js';
import { companyPackPdf, createCompanyPacksService, type CompanyPacksService } from '../features/companies/company-packs.service.js';
import { createInvitationsRepository } from '../features/companies/invitations.repository.js';
import { createInvitationsService, type InvitationsService } from '../features/companies/invitations.service.js';
import { createPlanRenderer } from '../features/plans/plan-renderer.js';
import { createPlanUploads, type PlanUploads } from '../features/plans/plan-uploads.js';
import { createPlansRepository } from '../features/plans/plans.repository.js';
import { createPlanViews, type PlanViews } from '../features/plans/plan-views.js';
import { createPlansService, type PlansService } from '../features/plans/plans.service.js';
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
 * What a caller (a test, the CLI) replaces instead of what createContext() would build; everything else is
 * built from the config as usual, on top of the replacements (a replaced `clock` is the clock of every service).
 */
export type ContextOverrides = Partial<Omit<AppContext, 'config' | 'close'>> & {
  /** Apply pending migrations at start (default true); a second node of a test skips them. */
  migrate?: boolean;
};

/** How often each node deletes expired rows (docs/operations.md, "Retention"). */
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/** The composition root: every dependency is built here, explicitly, from the config. */
export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const o = overrides;
  const clock = o.clock ?? systemClock;
  const db: Db = o.db ?? openDatabase(config.databaseUrl, { poolSize: config.databasePoolSize });
  if (o.migrate !== false) await migrateToLatest(db.kysely);
  const projectsRepo = createProjectsRepository(db.kysely);
  const blobs = o.blobs ?? openBlobStore(config.storageUrl, config.s3Credentials);
  const images = o.images ?? createImageConverter();
  const users = o.users ?? createUsersService(createUsersRepository(db.kysely), clock);
  const projects = o.projects ?? createProjectsService(projectsRepo);
  const sessions = o.sessions ?? createSessionsService(createSessionsRepository(db), clock);
  // Writes insert their audit record inside their own transaction; the records of everything else are
  // batched (features/audit/audit-batcher.ts) and written by close() at the latest.
  const audit = o.audit ?? createAuditService(createAuditRepository(db.kysely));
  const tokens = o.tokens ?? createTokensService(createTokensRepository(db.kysely), clock, projects);
  const eventsRepo = createEventsRepository(db.kysely);
  // The feed's item check is the item aggregate's, built below (features/events has no folder dependency on items).
  const events =
    o.events ??
    createEventsService({ repo: eventsRepo, projectsRepo, projects, items: { access: (actor, itemId) => items.access(actor, itemId) } });
  const structureRepo = createStructureRepository(db.kysely);
  const companies = o.companies ?? createCompaniesService({ repo: createCompaniesRepository(db.kysely), clock });
  const plansRepo = createPlansRepository(db.kysely);
  const vocabularyRepo = createVocabularyRepository(db.kysely);
  const templatesRepo = createTemplatesRepository(db.kysely);
  const itemEditsRepo = createItemEditsRepository(db.kysely);
  // One transaction runner (group commit on SQLite) under every module's write path (features/write-path/).
  const transactions = createTransactionRunner(db.kysely, db.dialect);
  const writePath = <R>(bind: (trx: Transaction<Database>) => R) => createWritePath({ transactions, bind, audit, events, clock });
  const itemsModule = createItemsModule({
    db: db.kysely,
    transactions,
    projectsRepo,
    projects,
    vocabularyRepo,
    audit,
    events,
    blobs,
    images,
    clock,
    urls: config,
  });
  const { items } = itemsModule;
  const structure =
    o.structure ??
    createStructureService({
      repo: structureRepo,
      projectsRepo,
      projects,
      path: writePath((trx) => ({ structure: structureRepo.bind(trx), projects: projectsRepo.bind(trx) })),
      clock,
    });
  const logError = (msg: string) => (error: unknown) =>
    process.stderr.write(`${JSON.stringify({ level: 50, time: Date.now(), msg, err: String(error) })}\n`);
  // Every background job has the same loop, lease, retries and metrics; a failed run is logged and retried.
  const jobs =
    o.jobs ??
    createJobRunner({
      store: createJobStore(db.kysely),
      clock,
      onError: (error, job) => logError(`${job}: a run failed; retrying with backoff`)(error),
    });
  const searchRepo = createSearchRepository(db.kysely, db.dialect);
  const projectSearch = o.projectSearch ?? createProjectSearch(projects, items, createSearchService(searchRepo, db.dialect));
  // Feeds SQLite's FTS5 outside the writes' transactions (migration 010).
  const searchIndexer = o.searchIndexer ?? createSearchIndexer(searchRepo, db.dialect, jobs);
  const notificationsRepo = createNotificationsRepository(db.kysely);
  let emailSender: EmailSender | null = null;
  const notifications =
    o.notifications ??
    createNotificationsService({
      repo: notificationsRepo,
      items,
      clock,
      emailEnabled: config.smtpUrl !== null,
      onQueued: () => emailSender?.wake(),
    });
  emailSender = config.smtpUrl
    ? createEmailSender(
        {
          repo: notificationsRepo,
          jobs,
          mailer: createSmtpMailer(config.smtpUrl, config.mailFrom),
          clock,
          baseUrl: config.baseUrl,
          canSee: (user, n) => notifications.canSee(user, n),
          renderMessage: createCompanyMail({
            baseUrl: config.baseUrl,
            userOf: async (id) => (await notificationsRepo.users([id]))[0],
            // At send time, as the recipient sees the project then (ctx exists by then).
            packPdf: (user, message) => companyPackPdf(ctx.reports, user, message),
          }),
        },
        { onError: logError('notification email failed'), enabled: config.notificationsEnabled },
      )
    : null;
  const notificationWorker =
    o.notificationWorker ??
    createNotificationWorker({
      service: notifications,
      eventsRepo,
      onCommitted: events.onCommitted,
      jobs,
      sender: emailSender,
      enabled: config.notificationsEnabled,
    });
  const webhooksRepo = createWebhooksRepository(db.kysely);
  // Started by the server only (main.ts), on every node: deliveries to webhook endpoints; close() stops it
  // before the database closes.
  const webhookWorker =
    o.webhookWorker ??
    createDeliveryWorker(
      { repo: webhooksRepo, events, clock, jobs },
      {
        allowPrivate: config.webhookAllowPrivate,
        onDisabled: (endpoint, reason) =>
          void notifications
            .notifyDirect({
              userId: endpoint.user_id,
              kind: 'webhook_disabled',
              key: `webhook_disabled:${endpoint.id}:${clock.now().toISOString()}`,
              words: (language) => ({
                text: message(language, 'notification.webhook_disabled', { url: endpoint.url, reason }),
                subject: message(language, 'notification.webhook_subject', { url: endpoint.url }),
              }),
            })
            .catch(logError('notification of a disabled webhook failed')),
      },
    );
  const retention = o.retention ?? createRetention({ repo: createRetentionRepository(db), clock, rules: retentionRules(config) });
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
  const worklistsRepo = createWorklistsRepository(db.kysely);
  const worklists = o.worklists ?? createWorklistsService({ repo: worklistsRepo, projects, projectsRepo, search: projectSearch, clock });
  const inlineDashboard = createDashboardService({ projects, repo: worklistsRepo, clock });
  const responseCache = o.responseCache !== undefined ? o.responseCache : createResponseCache(config.responseCacheMb * 1024 * 1024);
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
  const plans = o.plans ?? createPlansService({ repo: plansRepo, projects, blobs, urls: config });
  const planUploads =
    o.planUploads ??
    createPlanUploads({
      repo: plansRepo,
      plans,
      path: writePath((trx) => ({ plans: plansRepo.bind(trx), projects: projectsRepo.bind(trx) })),
      renderer: createPlanRenderer(),
      blobs,
      clock,
      limits: config.plans,
    });
  const ctx: AppContext = {
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
    worklists,
    dashboard: createCachedDashboard({
      // In the worker pool once it runs (as the web's heavy reads, web-plugin.ts); inline before.
      reads: () => (offload.stats().workers > 0 ? ctx.offloadedReads.dashboard : inlineDashboard),
      projects,
      cache: responseCache,
      treeVersion: (projectId) => ctx.cacheVersions.tree(projectId),
      lastEventId: () => eventsRepo.lastId(),
      clock,
    }),
    itemWrites: itemsModule.itemWrites,
    itemEdits: itemsModule.edits,
    bulkChanges: itemsModule.bulkChanges,
    comments: itemsModule.comments,
    answers: itemsModule.answers,
    idempotency: o.idempotency ?? createIdempotencyService(createIdempotencyRepository(db.kysely), clock),
    rateLimiter: o.rateLimiter !== undefined ? o.rateLimiter : createRateLimiter(config.rateLimitPerMinute, sharedRateLimitCounters(db)),
    oauth:
      o.oauth ??
      createOAuthService({
        repo: createOAuthRepository(db.kysely),
        tokens,
        clock,
        urls: config,
        onConnected: ({ userId, grantId, clientName }) =>
          void notifications
            .notifyDirect({
              userId,
              kind: 'oauth_client_connected',
              key: `oauth_grant:${grantId}`,
              words: (language) => ({
                text: message(language, 'notification.oauth_connected', { client: quoted(language, clientName) }),
                subject: message(language, 'notification.oauth_subject', { client: quoted(language, clientName) }),
              }),
            })
            .catch(logError('notification of a connected application failed')),
      }),
    oauthRateLimits: o.oauthRateLimits ?? {
      register: createRateLimiter(config.oauthRateLimits.registerPerMinute, sharedRateLimitCounters(db)),
      token: createRateLimiter(config.oauthRateLimits.tokenPerMinute, sharedRateLimitCounters(db)),
    },
    attachments: itemsModule.attachments,
    sessions,
    retention,
    jobs,
    metrics:
      o.metrics !== undefined
        ? o.metrics
        : config.metricsEnabled
          ? createMetrics({
              auditQueueDepth: () => audit.pending,
              webhookDeliveriesPending: () => webhookWorker.pending,
              jobs: () => jobs.stats(),
              emails: () => emailSender?.stats() ?? { sent: 0, failed: 0, waiting: 0 },
              ...(responseCache ? { responseCache: () => responseCache.stats } : {}),
            })
          : null,
    webhooks:
      o.webhooks ??
      createWebhooksService({ repo: webhooksRepo, eventsRepo, events, projects, clock, allowPrivate: config.webhookAllowPrivate }),
    webhookWorker,
    review: itemsModule.review,
    structure,
    vocabulary:
      o.vocabulary ??
      createVocabularyService({
        repo: vocabularyRepo,
        projects,
        path: writePath((trx) => ({ vocabulary: vocabularyRepo.bind(trx), projects: projectsRepo.bind(trx) })),
        clock,
      }),
    templates:
      o.templates ??
      createTemplatesService({
        repo: templatesRepo,
        vocabularyRepo,
        projectsRepo,
        projects,
        structure,
        path: writePath((trx) => ({
          structure: structureRepo.bind(trx),
          projects: projectsRepo.bind(trx),
          items: itemEditsRepo.bind(trx),
          vocabulary: vocabularyRepo.bind(trx),
          templates: templatesRepo.bind(trx),
        })),
        clock,
      }),
    members: o.members ?? createMembersService({ repo: createMembersRepository(db.kysely), clock }),
    usersAdmin: o.usersAdmin ?? createUsersAdminService({ users, sessions, tokens }),
    companies,
    invitations:
      o.invitations ??
      createInvitationsService({
        repo: createInvitationsRepository(db.kysely),
        projects,
        companies,
        mailQueue: notificationsRepo,
        clock,
        baseUrl: config.baseUrl,
        emailEnabled: config.smtpUrl !== null,
        onQueued: () => emailSender?.wake(),
      }),
    companyPacks:
      o.companyPacks ??
      createCompanyPacksService({
        repo: createCompanyPacksRepository(db.kysely),
        projects,
        mailQueue: notificationsRepo,
        clock,
        emailEnabled: config.smtpUrl !== null,
        onQueued: () => emailSender?.wake(),
      }),
    notifications,
    notificationWorker,
    offload,
    reports: o.reports ?? createOffloadedReports({ projects, pool: offload, clock }),
    offloadedReads: o.offloadedReads ?? createOffloadedReads(offload, clock),
    cacheVersions: o.cacheVersions ?? createCacheVersionsRepository(db.kysely),
    responseCache,
    plans,
    planUploads,
    planViews: createPlanViews({ repo: plansRepo, plans, projects }),
    itemLocations: itemsModule.itemLocations,
    itemDisputes: itemsModule.itemDisputes,
    async close() {
      // First: the workers' own connections close before the database they read; running plan uploads stop.
      await offload.close();
      await planUploads.close();
      // Each job ends the run under way (deliveries and emails in flight included) and gives its lease back.
      await jobs.stop();
      // The audit records still queued (reads of the last 100 ms) are written before the database closes.
      events.close();
      await audit.close();
      await db.close();
    },
  };
  return ctx;
}
