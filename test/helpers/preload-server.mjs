// `node --import ./test/helpers/preload-server.mjs --import tsx src/main.ts`: the server's JavaScript dependencies
// are loaded before tsx registers its loader hooks, through which every ES module file costs a round trip to the
// hooks thread (kysely 262 files, typebox 373). The same modules, once: src/ imports them from the module cache.
// bin/punchlist does the same for the CLI.
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
