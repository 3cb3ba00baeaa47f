// The JavaScript dependencies, loaded before tsx registers its loader hooks: through them every ES module file
// costs a round trip to the hooks thread (kysely is 262 files, typebox 373), a third of a CLI command's CPU and a
// quarter of a server's start. src/ then imports the same modules from the module cache. Used by `npm start`
// (`node --import ./src/preload-dependencies.mjs --import tsx src/main.ts`), bin/punchlist, the worker threads
// (src/features/offload/worker-bootstrap.mjs), the tests' child servers and the benchmarks' server.
await Promise.all(
  [
    'kysely',
    'better-sqlite3',
    'pg',
    'sharp',
    'nodemailer',
    'prom-client',
    'typebox',
    'typebox/value',
    '@modelcontextprotocol/sdk/server/index.js',
    '@modelcontextprotocol/sdk/types.js',
  ].map((name) => import(name)),
);
