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

/** Readings taken at each scrape (queue depths); a later feature with a queue adds its own here. */
export interface MetricSources {
  auditQueueDepth: () => number;
}

// Most answers take well under 5 ms (docs/performance.md): the low buckets are where they differ.
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

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
  new Gauge({
    name: 'punchlist_audit_queue_depth',
    help: 'Audit records of requests that wrote nothing, queued for the next batch insert',
    registers: [registry],
    collect() {
      this.set(sources.auditQueueDepth());
    },
  });
  // The labelled children, looked up once per combination: prom-client would hash the labels on every call.
  const counters = new Map<string, ReturnType<typeof requests.labels>>();
  const histograms = new Map<string, ReturnType<typeof durations.labels>>();
  return {
    observeRequest(route, method, status, seconds) {
      const routeKey = `${method} ${route}`;
      const key = `${routeKey} ${status}`;
      let counter = counters.get(key);
      if (!counter) counters.set(key, (counter = requests.labels(route, method, String(status))));
      counter.inc();
      let histogram = histograms.get(routeKey);
      if (!histogram) histograms.set(routeKey, (histogram = durations.labels(route, method)));
      histogram.observe(seconds);
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
