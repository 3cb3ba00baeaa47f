import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildAppOptions } from '../../src/app.js';
import type { Clock } from '../../src/shared/clock.js';
import { type Config, loadConfig } from '../../src/shared/config.js';
import { type AppContext, type ContextOverrides, createContext } from '../../src/composition/context.js';
import { hashPassword } from '../../src/domain/passwords.js';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { createTestDatabase, testDialect } from './database.js';
import { seedWorkspacePlan } from './plans.js';
import { buildWorkspace, PASSWORD, type UserKey } from './workspace.js';

export interface TestServer {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  dir: string;
  tokens: Record<UserKey, string>;
  /** A real HTTP request to the listening server. */
  request(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  /** request() and the parsed JSON body. */
  call(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Load the standard workspace (default true). */
  workspace?: boolean;
  /** The v1 operations to serve (default OPERATIONS): a test adds throwaway ones. */
  operations?: BuildAppOptions['operations'];
  /** Parts of the context a test replaces (built from the server's config), e.g. a worker pool running test jobs. */
  overrides?: (config: Config) => ContextOverrides;
}

/**
 * A loopback port free at the time of asking (the kernel's choice for port 0), so that a server's BASE_URL
 * can name it before the server is built: the app reads its base URL from the config only.
 */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * The workspace password's scrypt hash, made once per test process. Every workspace user signs in with
 * PASSWORD; hashing it for each of the 8 users at every server start cost ~0.9 s of CPU per server (of
 * ~1.2 s), ~2 minutes of CPU over the suite. Sign-in still checks the password against a real scrypt hash;
 * importing a fixture's plain passwords is tested where fixtures are imported (test/cli, the demo).
 */
let workspacePasswordHash: Promise<string> | undefined;

/** The standard workspace, its users' PASSWORD given as the hash made once per process. */
async function hashedWorkspace() {
  const workspace = buildWorkspace();
  workspacePasswordHash ??= hashPassword(PASSWORD);
  const hash = await workspacePasswordHash;
  const users = workspace.fixture.users.map(({ password, ...user }) =>
    password === PASSWORD ? { ...user, password_hash: hash } : { ...user, password },
  );
  return { ...workspace, fixture: { ...workspace.fixture, users } };
}

/** A Punchlist server on a fresh temp SQLite file and storage dir, listening on a free loopback port. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-test-'));
  const database = await createTestDatabase(dir, testDialect(), { migrated: true });
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    DATABASE_URL: database.url,
    STORAGE_URL: `file:${join(dir, 'storage')}`,
    DATA_DIR: dir,
    PORT: String(port),
    BASE_URL: url,
    LOG_LEVEL: 'silent',
    SESSION_SECRET: 'test-secret',
    ...options.env,
  });
  const ctx = await createContext(config, { clock: options.clock, ...options.overrides?.(config) });
  let tokens = {} as Record<UserKey, string>;
  if (options.workspace !== false) {
    const workspace = await hashedWorkspace();
    await importFixture(ctx.db.kysely, ctx.db.dialect, workspace.fixture, ctx.clock);
    await seedWorkspacePlan(ctx);
    tokens = workspace.tokens;
  }
  // As main.ts does: FTS5 fed in the background (search reads what is still queued meanwhile).
  ctx.searchIndexer.start();
  const app = await buildApp(ctx, { logger: false, ...(options.operations ? { operations: options.operations } : {}) });
  await app.listen({ host: '127.0.0.1', port });

  const request: TestServer['request'] = (path, init = {}) => {
    const { token, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
    if (json !== undefined) headers.set('content-type', 'application/json');
    return fetch(url + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };
  return {
    app,
    ctx,
    url,
    dir,
    tokens,
    request,
    async call(path, init) {
      // A request the server never answers fails here, naming it, rather than as the test's own timeout.
      const response = await request(path, { signal: AbortSignal.timeout(60_000), ...init }).catch((err: unknown) => {
        throw new Error(`${init?.method ?? 'GET'} ${path}: ${String(err)}`);
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body, headers: response.headers };
    },
    async close() {
      await app.close();
      await ctx.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const V1 = '/api/external/v1';
