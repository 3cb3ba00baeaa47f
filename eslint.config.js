import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'bench/results/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The web interface's one script runs in the browser.
    files: ['src/web/static/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        history: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        FormData: 'readonly',
        DOMParser: 'readonly',
        HTMLFormElement: 'readonly',
        fetch: 'readonly',
      },
    },
  },
  {
    // The offline layer (offline.js) and the service worker (sw.js, whose constants /sw.js writes in front of it).
    files: ['src/web/static/offline.js', 'src/web/static/sw.js', 'src/web/static/app.js'],
    languageOptions: {
      globals: {
        self: 'readonly',
        caches: 'readonly',
        location: 'readonly',
        Response: 'readonly',
        Blob: 'readonly',
        File: 'readonly',
        WeakMap: 'readonly',
        CustomEvent: 'readonly',
        HTMLFormElement: 'readonly',
        setTimeout: 'readonly',
        setInterval: 'readonly',
        VERSION: 'readonly',
        PRECACHE: 'readonly',
        OFFLINE_PAGE: 'readonly',
        USER_HEADER: 'readonly',
        USER_COOKIE: 'readonly',
      },
    },
  },
  {
    // The photo markup view (design.md §22): draws on a Konva stage, then hands the picture to the photo form.
    files: ['src/web/static/markup.js'],
    languageOptions: {
      globals: { crypto: 'readonly', Image: 'readonly', DataTransfer: 'readonly', File: 'readonly', Element: 'readonly' },
    },
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // The one type-aware rule, where a floating promise is a real bug: the service's code (bin/punchlist is
    // plain JavaScript that awaits its one call). It needs the TypeScript program, which made it 88 % of
    // ESLint's time over the whole tree (59 s of CPU); on src/ alone 41 s. The tests, benchmarks and scripts
    // are typechecked by tsc and linted without it; Vitest itself reports an expect(…).resolves/.rejects
    // left unawaited.
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
);
