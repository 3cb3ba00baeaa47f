// The JavaScript dependencies, loaded before tsx registers its loader hooks: through them every ES module file
// costs a round trip to the hooks thread (kysely is 262 files, typebox 373), a third of a CLI command's CPU and a
// quarter of a server's start. src/ then imports the same modules from the module cache. Used by `npm start`
// (`node --import ./src/preload-dependencies.mjs --import tsx src/main.ts`), bin/punchlist and the tests' child
// servers; the worker threads preload their own, shorter list (src/features/offload/worker-bootstrap.mjs).
// Only what every server loads: pg (PostgreSQL only), sharp (the first image), nodemailer (SMTP_URL only) and the
// MCP SDK (the first /mcp request) load when they are first needed, and a node that never needs them does
// without their memory (docs/performance.md, "Issue 31: server RSS").
await Promise.all(['kysely', 'better-sqlite3', 'prom-client', 'typebox', 'typebox/value'].map((name) => import(name)));
