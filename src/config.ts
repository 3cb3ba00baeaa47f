import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The only reader of process.env: typed, validated once, failing fast with a clear reason. */
export interface Config {
  databaseUrl: string;
  storageUrl: string;
  host: string;
  port: number;
  baseUrl: string;
  logLevel: string;
  sessionSecret: string;
  trustProxy: boolean;
  rateLimitPerMinute: number;
  dataDir: string;
  /** From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; absent: the AWS SDK's default chain. */
  s3Credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Connections of the PostgreSQL pool (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

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

function sessionSecret(env: Env, dataDir: string): string {
  if (env.SESSION_SECRET) return env.SESSION_SECRET;
  const file = resolve(dataDir, 'session-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
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
    sessionSecret: sessionSecret(env, dataDir),
    trustProxy: ['1', 'true', 'yes'].includes((env.TRUST_PROXY || '').toLowerCase()),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
    dataDir,
    s3Credentials:
      env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY }
        : undefined,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
  };
}
