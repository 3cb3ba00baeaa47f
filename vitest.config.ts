import { defineConfig } from 'vitest/config';

// Every API and service test runs on both dialects: SQLite (a temp file per server) and PostgreSQL
// (a fresh database per server on the machine's server, dropped afterwards; see test/helpers/database.ts).
const DIALECT_TESTS = [
  'test/api/**/*.test.ts',
  'test/security/**/*.test.ts',
  'test/web/pages.test.ts',
  'test/web/admin-pages.test.ts',
  'test/web/sessions.test.ts',
  'test/web/workplace.test.ts',
  'test/web/workplace-forms.test.ts',
  'test/web/cycle-rules.test.ts',
  'test/web/webhooks-profile.test.ts',
  'test/web/project-lists.test.ts',
  'test/web/project-page-offload.test.ts',
  'test/web/profile-settings.test.ts',
  'test/web/structure.test.ts',
  'test/web/plans-forms.test.ts',
  'test/web/dashboard.test.ts',
  'test/web/languages.test.ts',
  'test/web/languages-browser.test.ts',
  'test/web/field-reasons.test.ts',
  'test/web/browser-language.test.ts',
  'test/web/vocabulary-forms.test.ts',
  'test/web/vocabulary-roles.test.ts',
  'test/web/notifications.test.ts',
  'test/web/token-projects.test.ts',
  'test/web/item-history.test.ts',
  'test/web/invitations.test.ts',
  'test/web/form-path.test.ts',
  'test/client.test.ts',
  'test/mcp.test.ts',
  'test/openapi.test.ts',
  'test/upgrade/**/*.test.ts',
  'src/features/**/*.test.ts',
  'src/jobs/**/*.test.ts',
  'test/reports/report-api.test.ts',
  'test/reports/report-web.test.ts',
  'test/reports/report-plans.test.ts',
  'test/reports/company-packs.test.ts',
];

export default defineConfig({
  test: {
    // Far above what any test takes on a quiet machine (the slowest, ~40 s, kill and restart servers): the suite
    // runs three files at once on two cores beside servers, PostgreSQL and Chromium, and a busy machine may be
    // three times slower; a limit is there to end a hang, never to judge speed (benchmarks do that).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the CPUs: one worker on the 2-core CI machine. Most files
    // wait on servers, browsers and databases rather than compute, so three overlap well there (four overloaded it: timeouts).
    maxWorkers: 3,
    // A worker keeps its modules from one test file to the next: loading the app (Fastify, sharp, the AWS and
    // MCP SDKs) cost ~2.5 s per file, a third of the suite's time. Every test builds its own context,
    // database and server, so no state is shared through modules.
    isolate: false,
    // Migrated databases of both dialects, made once per run, that test servers start from (test/helpers/database.ts).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          // What only PostgreSQL has (writers committing side by side) is tested there alone: nothing is skipped.
          exclude: ['**/node_modules/**', '**/*.postgres.test.ts'],
          env: { PUNCHLIST_TEST_DB: 'sqlite' },
          // A write that reaches the root database fails at once instead of hanging (src/db/write-guard.ts); off in
          // production, where on Node 20 its async hooks cost every request CPU.
          setupFiles: ['test/helpers/write-guard.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'postgres', include: [...DIALECT_TESTS, 'src/**/*.postgres.test.ts'], env: { PUNCHLIST_TEST_DB: 'postgres' } },
      },
    ],
  },
});
