import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's metrics in the Prometheus text format. The only file that imports prom-client; the rest
 * of the code sees this interface. Each instance has its own registry (several contexts in one test
 * process do not share counters).
 */
export interface Metrics {
  /** One answered HTTP request: `route` is the route pattern, never the raw URL. */
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  /** The exposition: every metric, the process ones included, as of now. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** What each background job tells at a scrape (src/jobs/job-runner.ts, JobStats). */
interface JobReading {
  name: string;
  runs: number;
  failures: number;
  /** ms since the epoch */
  lastRunAt: number | null;
  backlog: number;
}

/** Readings taken at each scrape (queue depths); a later feature with a queue adds its own here. */
interface MetricSources {
  auditQueueDepth: () => number;
  webhookDeliveriesPending: () => number;
  /** Notification emails sent and failed attempts on this node, and the emails waiting (docs/design.md §15). */
  emails?: () => { sent: number; failed: number; waiting: number };
  /** The background jobs of this node (src/jobs): the same readings for every job, labelled by its name. */
  jobs?: () => readonly JobReading[];
  /** The response cache of this node (features/caches), when it is on. */
  responseCache?: () => { hits: number; misses: number; bytes: number };
}

// Most answers take well under 5 ms (docs/performance.md): the low buckets are where they differ.
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The audit queue and the webhook deliveries: read at each scrape. */
function registerQueues(registry: Registry, sources: MetricSources): void {
  new Gauge({
    name: 'punchlist_audit_queue_depth',
    help: 'Audit records of requests that wrote nothing, queued for the next batch insert',
    registers: [registry],
    collect() {
      this.set(sources.auditQueueDepth());
    },
  });
  new Gauge({
    name: 'punchlist_webhook_deliveries_pending',
    help: 'Events waiting to be delivered to active webhook endpoints (after their cursors), as of the last look of this node',
    registers: [registry],
    collect() {
      this.set(sources.webhookDeliveriesPending());
    },
  });
}

function registerEmails(registry: Registry, emails: NonNullable<MetricSources['emails']>): void {
  new Counter({
    name: 'punchlist_notification_emails_sent_total',
    help: 'Notification emails the SMTP server accepted, sent by this node',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(emails().sent);
    },
  });
  new Counter({
    name: 'punchlist_notification_emails_failed_total',
    help: 'Notification email attempts that failed on this node (refused for good, or to be retried)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(emails().failed);
    },
  });
  new Gauge({
    name: 'punchlist_notification_emails_waiting',
    help: 'Notification emails queued and not yet sent, refused or given up, as of the last look of this node',
    registers: [registry],
    collect() {
      this.set(emails().waiting);
    },
  });
}

function registerJobs(registry: Registry, jobs: NonNullable<MetricSources['jobs']>): void {
  const labels = { labelNames: ['job'] as const, registers: [registry] };
  // Counters are set from the jobs' own totals at each scrape, as the emails' are.
  const jobCounter = (name: string, help: string, read: (job: JobReading) => number) =>
    new Counter({
      name,
      help,
      ...labels,
      collect() {
        this.reset();
        for (const job of jobs()) this.inc({ job: job.name }, read(job));
      },
    });
  const jobGauge = (name: string, help: string, read: (job: JobReading) => number | null) =>
    new Gauge({
      name,
      help,
      ...labels,
      collect() {
        this.reset();
        for (const job of jobs()) {
          const value = read(job);
          if (value !== null) this.set({ job: job.name }, value);
        }
      },
    });
  jobCounter('punchlist_job_runs_total', 'Runs of a background job that ended well on this node', (j) => j.runs);
  jobCounter(
    'punchlist_job_failures_total',
    'Runs of a background job that failed on this node (each retried with backoff)',
    (j) => j.failures,
  );
  jobGauge(
    'punchlist_job_lag',
    'Work a background job had still waiting at its last run (events, deliveries, emails), as seen by this node',
    (j) => j.backlog,
  );
  jobGauge('punchlist_job_last_run_timestamp_seconds', 'When the last run of a background job ended on this node (Unix time)', (j) =>
    j.lastRunAt === null ? null : j.lastRunAt / 1000,
  );
}

function registerResponseCache(registry: Registry, cache: NonNullable<MetricSources['responseCache']>): void {
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  counter('punchlist_response_cache_hits_total', 'Item cards and project trees answered from the response cache', () => cache().hits);
  counter(
    'punchlist_response_cache_misses_total',
    'Item cards and project trees built because no valid cached answer was kept',
    () => cache().misses,
  );
  new Gauge({
    name: 'punchlist_response_cache_bytes',
    help: 'Memory held by the response cache (RESPONSE_CACHE_MB bounds it)',
    registers: [registry],
    collect() {
      this.set(cache().bytes);
    },
  });
}

export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'punchlist_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'punchlist_http_request_duration_seconds',
    help: 'Time from the request to its answer, by route pattern and method',
    labelNames: ['route', 'method'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  registerQueues(registry, sources);
  if (sources.emails) registerEmails(registry, sources.emails);
  if (sources.jobs) registerJobs(registry, sources.jobs);
  if (sources.responseCache) registerResponseCache(registry, sources.responseCache);
  // The labelled children, made once per route, method and status and found again by plain lookups on the
  // same strings: prom-client would hash the label values on every call (docs/performance.md, "Metrics").
  type Series = { duration: ReturnType<typeof durations.labels>; byStatus: Map<number, ReturnType<typeof requests.labels>> };
  const series = new Map<string, Map<string, Series>>();
  return {
    observeRequest(route, method, status, seconds) {
      let byMethod = series.get(route);
      if (!byMethod) series.set(route, (byMethod = new Map()));
      let one = byMethod.get(method);
      if (!one) byMethod.set(method, (one = { duration: durations.labels(route, method), byStatus: new Map() }));
      let counter = one.byStatus.get(status);
      if (!counter) one.byStatus.set(status, (counter = requests.labels(route, method, String(status))));
      counter.inc();
      one.duration.observe(seconds);
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
