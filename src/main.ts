import { ConfigError, loadConfig } from './shared/config.js';
import { buildApp } from './app.js';
import { createContext } from './composition/context.js';
import { sweepOrphanBlobs } from './features/items/index.js';
import { nodeVersionWarning } from './node-support.js';

/** Process entry: config → context → listen; graceful shutdown on SIGINT/SIGTERM. */
export async function serve(options: { demo: boolean }) {
  const config = loadConfig();
  const ctx = await createContext(config);
  const app = await buildApp(ctx);
  const nodeWarning = nodeVersionWarning(process.versions.node);
  if (nodeWarning) app.log.warn(nodeWarning);
  if (ctx.db.dialect === 'postgres' && !config.sessionSecretFromEnv) {
    // PostgreSQL is how several nodes share one deployment: each would have its own generated secret.
    app.log.warn(
      'SESSION_SECRET is not set: using the secret generated under DATA_DIR; with several nodes, set the same SESSION_SECRET on every node',
    );
  }
  const demo = options.demo ? await (await import('./demo/demo.js')).loadDemoWorkspaceIfEmpty(ctx) : null;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
    // Writes the audit records still queued (reads of the last ≤ 100 ms) before the database closes.
    await ctx.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // Blobs written by versions that used the process umask (0644) become the service account's only.
  try {
    const tightened = await ctx.blobs.restrictToOwner();
    if (tightened > 0) app.log.info({ tightened }, 'storage: files and folders made readable by this account only (0600/0700)');
  } catch (err) {
    app.log.error({ err }, 'storage: could not restrict its files to this account; serving anyway');
  }
  // What a crash left behind (blobs of uploads that never committed), before any new upload can start.
  try {
    const swept = await sweepOrphanBlobs({ db: ctx.db.kysely, blobs: ctx.blobs }, { graceMs: config.orphanSweepGraceSeconds * 1000 });
    if (swept.refused) {
      app.log.error(
        { swept },
        'orphan blob sweep refused: most stored images have no attachment row — is DATABASE_URL the database of this STORAGE_URL? Nothing was deleted',
      );
    } else if (swept.removed || swept.leftovers || swept.spared) app.log.info({ swept }, 'orphan blobs swept');
  } catch (err) {
    app.log.error({ err }, 'orphan blob sweep failed; serving anyway');
  }
  await app.listen({ host: config.host, port: config.port });
  // The background jobs in one loop (src/jobs): notifications (unless NOTIFICATIONS=off), their emails, webhook
  // deliveries, the search indexer (SQLite), retention; ctx.close() stops them.
  ctx.jobs.start();
  // The worker thread (reports, trees, searches) loads its modules and opens its connection now, not at the
  // first report or tree (1–3 s); after listening, so that it does not slow the start of the server itself.
  ctx.offload.start();
  const mail = !config.notificationsEnabled
    ? 'notifications: off on this node (NOTIFICATIONS=off)'
    : config.smtpUrl
      ? `notifications: by email through ${new URL(config.smtpUrl).host} from ${config.mailFrom}, and in the web`
      : 'notifications: in the web only (SMTP_URL is not set, so no email is sent)';
  app.log.info(mail);
  // Printed once the server listens: the curl line works the moment it appears.
  if (demo) {
    const { DEMO_SIGN_INS } = await import('./demo/demo.js');
    const demoSignIns = DEMO_SIGN_INS.map((s) => `  ${s.email.padEnd(22)} ${s.who}`).join('\n');
    process.stdout.write(
      `\nDemo workspace loaded. Demo token (shown once, scopes: all):\n\n  ${demo.token}\n\nTry:\n\n  curl -s -H 'Authorization: Bearer ${demo.token}' ${config.baseUrl}/api/external/v1/auth/me.php\n\nWeb sign-in at ${config.baseUrl}/login, password ${demo.password} for everyone:\n\n${demoSignIns}\n\nNotifications: ${config.smtpUrl ? 'by email and in the web' : 'in the web only (set SMTP_URL to send emails)'}\n\n`,
    );
  }
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve({ demo: process.argv.includes('--demo') }).catch((err: unknown) => {
    process.stderr.write(`punchlist: ${err instanceof ConfigError || err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
