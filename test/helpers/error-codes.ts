import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';

/** The error codes the sources can answer a v1 client with, read from the sources (openapi.test.ts checks the document lists them all). */

const SOURCE_ROOT = join(import.meta.dirname, '..', '..', 'src');

/** The files whose errors can reach a v1 client: the typed errors, the socket-level guards and the /api/ tree. */
function errorSourceFiles(): string[] {
  const api = readdirSync(join(SOURCE_ROOT, 'api'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => join('api', f));
  return [join('shared', 'errors.ts'), 'http-guards.ts', ...api];
}

// new ApiError(409, 'code', …), [415, 'code', …] and [431, 'Reason Phrase', 'code', …] tables, envelope('code', …) of http-guards.ts.
const CODE_PATTERNS = [/ApiError\(\s*(\d{3}),\s*'([a-z_]+)'/g, /\[(\d{3}),\s*(?:'[^']*',\s*)?'([a-z_]+)'/g];
// A subclass with a fixed status (class TokenRefused extends ApiError { … super(401, code, …) }), built as new TokenRefused('code', …).
const SUBCLASS = /class (\w+) extends ApiError\b[\s\S]*?super\(\s*(\d{3}),/g;

export type SourceCode = { file: string; status: number; code: string };

/** Every (status, error code) written in the sources, by file (`src/…`). */
export function errorCodesOfSources(): Map<string, SourceCode[]> {
  const texts = errorSourceFiles().map((relative) => ({
    file: `src/${relative.split(sep).join('/')}`,
    text: readFileSync(join(SOURCE_ROOT, relative), 'utf8'),
  }));
  const subclasses = texts.flatMap(({ text }) => [...text.matchAll(SUBCLASS)].map((m) => ({ name: m[1]!, status: Number(m[2]) })));
  const byFile = new Map<string, SourceCode[]>();
  for (const { file, text } of texts) {
    const found: SourceCode[] = CODE_PATTERNS.flatMap((pattern) =>
      [...text.matchAll(pattern)].map((m) => ({ file, status: Number(m[1]), code: m[2]! })),
    );
    for (const { name, status } of subclasses) {
      for (const m of text.matchAll(new RegExp(`new ${name}\\(\\s*'([a-z_]+)'`, 'g'))) found.push({ file, status, code: m[1]! });
    }
    // http-guards.ts answers 417 through its envelope() helper, whose status is in writeHead.
    if (/envelope\('expectation_failed'/.test(text)) found.push({ file, status: 417, code: 'expectation_failed' });
    const unique = [...new Map(found.map((f) => [`${f.status} ${f.code}`, f])).values()];
    if (unique.length) byFile.set(file, unique);
  }
  return byFile;
}
