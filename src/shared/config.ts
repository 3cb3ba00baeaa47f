import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP, isIPv4 } from 'node:net';
import { dirname, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';

/** The only reader of process.env: typed, validated once, failing fast with a clear reason. */
export interface Config {
  databaseUrl: string;
  storageUrl: string;
  host: string;
  port: number;
  baseUrl: string;
  logLevel: string;
  /** LOG_FORMAT: `pretty` (one readable line per event, pino-pretty) or `json`; default pretty when stdout is a terminal. */
  logFormat: 'pretty' | 'json';
  sessionSecret: string;
  /**
   * False when SESSION_SECRET was not set and the secret came from (or was generated into) DATA_DIR: that
   * secret is this machine's alone, so nodes behind one load balancer would not accept each other's
   * sign-in forms (docs/deployment.md).
   */
  sessionSecretFromEnv: boolean;
  /**
   * TRUST_PROXY: which hops of X-Forwarded-For to believe, as Fastify's `trustProxy` takes it: a number of
   * proxies in front (1: the nearest one), or a list of their addresses and CIDRs; false (unset, 0): none.
   */
  trustProxy: false | number | string[];
  /** WEBHOOK_ALLOW_PRIVATE=1: webhooks may be sent to loopback, private and link-local addresses (tests, closed networks). */
  webhookAllowPrivate: boolean;
  rateLimitPerMinute: number;
  /** OAUTH_REGISTER_PER_MINUTE / OAUTH_TOKEN_PER_MINUTE: requests per client IP to /oauth/register and /oauth/token (0 disables). */
  oauthRateLimits: { registerPerMinute: number; tokenPerMinute: number };
  dataDir: string;
  /** From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; absent: the AWS SDK's default chain. */
  s3Credentials?: { accessKeyId: string; secretAccessKey: string };
  /** RESPONSE_CACHE_MB: memory for cached item cards and project trees (docs/performance.md, "Caches"); 0: off. */
  responseCacheMb: number;
  /** Connections of the PostgreSQL pool (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /** Slow-client protection of the HTTP server (docs/operations.md, "Timeouts"). */
  timeouts: ServerTimeouts;
  /**
   * ORPHAN_SWEEP_GRACE_SECONDS: the start-up sweep of blobs without an attachment row spares blobs younger
   * than this. Default 0 for `file:` storage (one process owns it, and nothing is in flight before it
   * listens), 600 for `s3://` (other nodes may be uploading).
   */
  orphanSweepGraceSeconds: number;
  /** AUDIT_RETENTION_DAYS: audit records older than this are deleted (features/retention); 0 keeps them forever. */
  auditRetentionDays: number;
  /** EVENT_RETENTION_DAYS: events of the change feed older than this are deleted (default 30). */
  eventRetentionDays: number;
  /** METRICS (`on`/`off`, default on): `GET /metrics` and the per-request counters (docs/operations.md). */
  metricsEnabled: boolean;
  /** METRICS_TOKEN: the bearer token that opens `/metrics` to clients other than loopback ones. */
  metricsToken?: string;
  /** CORS_ORIGINS: origins allowed to call v1 from a browser; ['*'] (default) any, [] (empty value) none. */
  corsOrigins: string[];
  /** MCP_ALLOWED_ORIGINS: a request to /mcp with another `Origin` is refused; null (unset): BASE_URL's origin. */
  mcpAllowedOrigins: string[] | null;
  /** SMTP_URL: `smtp://[user:pass@]host:port` or `smtps://…`; null (unset): notifications in the web only. */
  smtpUrl: string | null;
  /**
   * MAIL_FROM: the sender of notification emails (default `Punchlist <punchlist@HOST>`, HOST from BASE_URL; an IP
   * address written as an address literal, `punchlist@[192.0.2.1]`).
   */
  mailFrom: string;
  /** NOTIFICATION_RETENTION_DAYS: read notifications older than this are deleted (default 90). */
  notificationRetentionDays: number;
  /** NOTIFICATIONS (`on`/`off`, default on): whether this node runs the notification work (events, schedule, emails). */
  notificationsEnabled: boolean;
  /**
   * The worker threads that run heavy reads off the event loop (features/offload): WORKER_THREADS of them
   * (default 1), each running reports and v1's trees and searches side by side. WORKER_QUEUE_LIMIT reports
   * may wait beyond those running (default 4), READ_QUEUE_LIMIT trees and searches (default 256); one more is
   * refused with 503 and Retry-After (10 s for a report, 1 s for a read).
   */
  workerThreads: number;
  workerQueueLimit: number;
  readQueueLimit: number;
  /** Plans (docs/design.md §19, features/plans): what an upload may be, and the limits of the process that renders it. */
  plans: PlanLimits;
}

export interface PlanLimits {
  /** PLAN_MAX_MB: a larger file is refused with 422 (default 100). */
  maxMb: number;
  /** PLAN_MAX_PAGES: a PDF of more pages is refused with 422 (default 100). */
  maxPages: number;
  /**
   * PLAN_RENDER_TIMEOUT_SECONDS: the rendering process of an upload is stopped after this much CPU time (a PDF
   * that makes pdf.js loop) and the upload refused (default 600: a 50-page A1 set takes ~2 minutes). On Linux the
   * process's CPU time is counted (a rendering that waits for a core is not refused for waiting), elsewhere time. Its first step, reading
   * the file (pages, encryption), has a tenth of it, at least 5 s, while the upload request waits.
   */
  renderTimeoutSeconds: number;
  /** PLAN_RENDER_MEMORY_MB: the JavaScript heap of that process (default 256); a PDF that needs more is refused. */
  renderMemoryMb: number;
  /**
   * PLAN_RENDER_NICE: the priority of that process, as `nice` (0 normal, 19 lowest; default 19): it renders with
   * the CPU the server leaves (docs/performance.md, "Plans").
   */
  renderNice: number;
}

export interface ServerTimeouts {
  /** REQUEST_TIMEOUT_MS: the whole request (headers and body) must arrive within this time, else 408. */
  requestMs: number;
  /** HEADERS_TIMEOUT_MS: the request line and headers must arrive within this time, else 408 (slowloris). */
  headersMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS: an idle keep-alive connection is closed after this time. */
  keepAliveMs: number;
  /** CONNECTION_TIMEOUT_MS: a socket with no traffic either way for this long is closed (0: never). */
  connectionMs: number;
}

/** What a worker thread of the pool is given of the config (src/composition/offload-worker.ts; copied into the thread: plain data only). */
export type WorkerConfig = Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'storageUrl' | 's3Credentials' | 'baseUrl'>;

export function workerConfig(config: Config): WorkerConfig {
  const { databaseUrl, databasePoolSize, storageUrl, s3Credentials, baseUrl } = config;
  return { databaseUrl, databasePoolSize, storageUrl, s3Credentials, baseUrl };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/**
 * TRUST_PROXY: a hop count or a comma list of proxy addresses/CIDRs. "Trust every hop" is not offered: it lets a
 * client choose its own address by sending X-Forwarded-For (`true`, `yes` and `all` are refused, not guessed).
 */
function trustedProxies(raw: string | undefined): false | number | string[] {
  const value = (raw ?? '').trim();
  if (value === '' || value === '0') return false;
  if (/^[1-9][0-9]?$/.test(value)) return Number(value);
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length && list.every((entry) => isAddressOrCidr(entry))) {
    refuseWideTrust(list);
    return list;
  }
  throw new ConfigError(
    `TRUST_PROXY must be the number of proxies in front (1-99) or a comma list of their addresses or CIDRs ` +
      `(e.g. 10.1.0.0/16,::1), got "${value}"; trusting every hop ("true") would let clients choose their address`,
  );
}

/** The widest trust a list may give, in addresses: a /8 of IPv4, a /32 of IPv6. */
const WIDEST_IPV4 = 2n ** 24n;
const WIDEST_IPV6 = 2n ** 96n;
/** ::ffff:0:0/96, where IPv4 clients appear to a dual-stack socket; proxy-addr matches it against IPv4 ranges. */
const MAPPED_START = 0xffffn << 32n;
const MAPPED_END = MAPPED_START + 2n ** 32n - 1n;

/**
 * A list whose ranges together cover more than a /8 of IPv4 or a /32 of IPv6 trusts nearly everyone (e.g.
 * `0.0.0.0/1,128.0.0.0/1` is every IPv4 address): any client could then choose its address. The IPv4-mapped part
 * of an IPv6 range counts as IPv4, since an IPv4 client matches it.
 */
function refuseWideTrust(list: string[]): void {
  const v4: [bigint, bigint][] = [];
  const v6: [bigint, bigint][] = [];
  for (const entry of list) {
    const [address, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.parse(entry), null];
    const bytes = address.toByteArray();
    const start = bytes.reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
    const size = 2n ** BigInt(bytes.length * 8 - (bits ?? bytes.length * 8));
    const first = start - (start % size);
    const last = first + size - 1n;
    if (address.kind() === 'ipv4') {
      v4.push([first, last]);
      continue;
    }
    v6.push([first, last]);
    if (first <= MAPPED_END && last >= MAPPED_START) {
      v4.push([(first > MAPPED_START ? first : MAPPED_START) - MAPPED_START, (last < MAPPED_END ? last : MAPPED_END) - MAPPED_START]);
    }
  }
  const wide = [
    { family: 'IPv4', covered: coveredAddresses(v4), widest: WIDEST_IPV4, example: 'a /8' },
    { family: 'IPv6', covered: coveredAddresses(v6), widest: WIDEST_IPV6, example: 'a /32' },
  ].find((f) => f.covered > f.widest);
  if (wide) {
    throw new ConfigError(
      `TRUST_PROXY trusts ${wide.covered} ${wide.family} addresses together, more than ${wide.example} (${wide.widest}): ` +
        `clients in that range could choose their own address; list only your proxies' addresses or subnets`,
    );
  }
}

/** How many addresses the ranges cover together, overlaps counted once. */
function coveredAddresses(ranges: [bigint, bigint][]): bigint {
  const sorted = [...ranges].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let total = 0n;
  let reached = -1n;
  for (const [first, last] of sorted) {
    if (last <= reached) continue;
    total += last - (first > reached ? first : reached + 1n) + 1n;
    reached = last;
  }
  return total;
}

function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length || !address || isIP(address) === 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (isIP(address) === 4 ? 32 : 128);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function oneOf(env: Env, name: string, fallback: string, prefixes: string[]): string {
  const value = env[name] || fallback;
  if (!prefixes.some((p) => value.startsWith(p))) {
    throw new ConfigError(`${name} must start with ${prefixes.join(' or ')}, got "${value}"`);
  }
  return value;
}

function choice<T extends string>(env: Env, name: string, fallback: T, values: readonly T[]): T {
  const value = env[name] || fallback;
  if (!values.includes(value as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}; got "${value}"`);
  return value as T;
}

function sessionSecret(env: Env, dataDir: string): string {
  if (env.SESSION_SECRET) return env.SESSION_SECRET;
  const file = resolve(dataDir, 'session-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

export function loadConfig(env: Env = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const dataDir = resolve(env.DATA_DIR || './data');
  const baseUrl = (env.BASE_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(baseUrl)) throw new ConfigError(`BASE_URL must be an http(s) URL, got "${baseUrl}"`);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`);
  }
  return {
    databaseUrl: oneOf(env, 'DATABASE_URL', 'sqlite:./data/punchlist.db', ['sqlite:', 'postgres://', 'postgresql://']),
    storageUrl: oneOf(env, 'STORAGE_URL', 'file:./data/storage', ['file:', 's3://']),
    host,
    port,
    baseUrl,
    logLevel,
    logFormat: choice(env, 'LOG_FORMAT', process.stdout.isTTY ? 'pretty' : 'json', ['pretty', 'json'] as const),
    sessionSecret: sessionSecret(env, dataDir),
    sessionSecretFromEnv: Boolean(env.SESSION_SECRET),
    trustProxy: trustedProxies(env.TRUST_PROXY),
    webhookAllowPrivate: ['1', 'true', 'yes'].includes((env.WEBHOOK_ALLOW_PRIVATE || '').toLowerCase()),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
    oauthRateLimits: {
      registerPerMinute: integer(env, 'OAUTH_REGISTER_PER_MINUTE', 20, 0, 1_000_000),
      tokenPerMinute: integer(env, 'OAUTH_TOKEN_PER_MINUTE', 60, 0, 1_000_000),
    },
    dataDir,
    s3Credentials:
      env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY }
        : undefined,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    responseCacheMb: integer(env, 'RESPONSE_CACHE_MB', 32, 0, 4096),
    timeouts: serverTimeouts(env),
    corsOrigins: origins(env, 'CORS_ORIGINS', ['*'], true),
    mcpAllowedOrigins: env.MCP_ALLOWED_ORIGINS === undefined ? null : origins(env, 'MCP_ALLOWED_ORIGINS', [], false),
    orphanSweepGraceSeconds: integer(
      env,
      'ORPHAN_SWEEP_GRACE_SECONDS',
      (env.STORAGE_URL ?? '').startsWith('s3://') ? 600 : 0,
      0,
      31_536_000,
    ),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 180, 0, 36_500),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 30, 1, 36_500),
    metricsEnabled: choice(env, 'METRICS', 'on', ['on', 'off']) === 'on',
    metricsToken: env.METRICS_TOKEN || undefined,
    workerThreads: integer(env, 'WORKER_THREADS', 1, 1, 64),
    workerQueueLimit: integer(env, 'WORKER_QUEUE_LIMIT', 4, 0, 1000),
    readQueueLimit: integer(env, 'READ_QUEUE_LIMIT', 256, 0, 10_000),
    plans: {
      maxMb: integer(env, 'PLAN_MAX_MB', 100, 1, 2000),
      maxPages: integer(env, 'PLAN_MAX_PAGES', 100, 1, 10_000),
      renderTimeoutSeconds: integer(env, 'PLAN_RENDER_TIMEOUT_SECONDS', 600, 1, 86_400),
      renderMemoryMb: integer(env, 'PLAN_RENDER_MEMORY_MB', 256, 16, 16_384),
      renderNice: integer(env, 'PLAN_RENDER_NICE', 19, 0, 19),
    },
    ...mailConfig(env, baseUrl),
  };
}

/**
 * The domain of MAIL_FROM's default address, from BASE_URL's host: a name as it is; an IP address as an address
 * literal (RFC 5321 §4.1.3), since `punchlist@192.0.2.1` is no valid address: `[192.0.2.1]`, `[IPv6:2001:db8::1]`
 * (URL gives an IPv6 host in brackets already).
 */
function mailDomain(hostname: string): string {
  if (hostname.startsWith('[')) return `[IPv6:${hostname.slice(1, -1)}]`;
  return isIPv4(hostname) ? `[${hostname}]` : hostname;
}

/** SMTP_URL, MAIL_FROM and NOTIFICATION_RETENTION_DAYS (docs/design.md §15). */
function mailConfig(
  env: Env,
  baseUrl: string,
): Pick<Config, 'smtpUrl' | 'mailFrom' | 'notificationRetentionDays' | 'notificationsEnabled'> {
  const smtpUrl = env.SMTP_URL || null;
  if (smtpUrl !== null) {
    let url: URL | null = null;
    try {
      url = new URL(smtpUrl);
    } catch {
      // refused below
    }
    if (!url || !['smtp:', 'smtps:'].includes(url.protocol) || !url.hostname) {
      throw new ConfigError(
        `SMTP_URL must look like smtp://[user:pass@]host:port or smtps://…, got "${smtpUrl.replace(/\/\/[^@/]*@/, '//…@')}"`,
      );
    }
  }
  const mailFrom = env.MAIL_FROM || `Punchlist <punchlist@${mailDomain(new URL(baseUrl).hostname)}>`;
  if (/[\r\n]/.test(mailFrom)) throw new ConfigError('MAIL_FROM must be one line');
  return {
    smtpUrl,
    mailFrom,
    notificationRetentionDays: integer(env, 'NOTIFICATION_RETENTION_DAYS', 90, 1, 36_500),
    notificationsEnabled: choice(env, 'NOTIFICATIONS', 'on', ['on', 'off']) === 'on',
  };
}

/** A comma list of origins (`*` alone allowed where `allowAny`); undefined: the fallback, empty: none. */
function origins(env: Env, name: string, fallback: string[], allowAny: boolean): string[] {
  const raw = env[name];
  if (raw === undefined) return fallback;
  const list = raw
    .split(',')
    .map((value) => value.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  for (const value of list) {
    if (value === '*' ? !allowAny || list.length > 1 : !/^https?:\/\/[^/?#\s]+$/.test(value)) {
      throw new ConfigError(
        `${name} must be ${allowAny ? '"*" or ' : ''}a comma list of origins such as https://panel.example.com, got "${raw}"`,
      );
    }
  }
  return list;
}

function serverTimeouts(env: Env): ServerTimeouts {
  const requestMs = integer(env, 'REQUEST_TIMEOUT_MS', 120_000, 1, 3_600_000);
  const headersMs = integer(env, 'HEADERS_TIMEOUT_MS', 15_000, 1, 3_600_000);
  // Node measures the headers within the request: a longer headers timeout could never apply.
  if (headersMs > requestMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${headersMs}) must not exceed REQUEST_TIMEOUT_MS (${requestMs})`);
  }
  return {
    requestMs,
    headersMs,
    keepAliveMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1, 3_600_000),
    connectionMs: integer(env, 'CONNECTION_TIMEOUT_MS', 120_000, 0, 3_600_000),
  };
}
