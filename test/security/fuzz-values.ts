import fc from 'fast-check';

/** The values of the fuzz tests (fuzz*.test.ts): adversarial strings, query strings and JSON bodies. */

/** Percent-encodes every byte outside the unreserved set (lone surrogates become U+FFFD, as in UTF-8). */
const pct = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

const nasty = fc.constantFrom(
  '',
  ' ',
  '0',
  '-1',
  '01',
  '1e3',
  '0x10',
  '1.0',
  '1.5',
  ' 1',
  '1 ',
  '+1',
  '９',
  '١٢',
  'NaN',
  'Infinity',
  '-0',
  '1000',
  '2000',
  '4000',
  '7000',
  '9007199254740993',
  '99999999999999999999999',
  '1'.repeat(400),
  'null',
  'true',
  '[]',
  '{}',
  '[1000]',
  '%00',
  '\u0000',
  '\u001b[31m',
  '\r\n',
  '\ud800',
  '\udfff',
  '\u202e',
  '\ufeff',
  'é',
  'ё',
  'İ',
  '𝔘',
  "' OR 1=1 --",
  '"; drop table items; --',
  '%',
  '_',
  '\\',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  'all',
  'false',
  'archived',
  'pending',
  'done',
  'project',
  'item',
  'link',
);
export const text = fc.oneof(
  { weight: 3, arbitrary: nasty },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 5000 }).map((n) => 'x'.repeat(n)) },
);
// Typos and parameters of other operations: unknown parameters are 422 (docs/design.md §6).
const paramName = fc.constantFrom(
  'id',
  'item_id',
  'answer_id',
  'limit',
  'offset',
  'archived',
  'q',
  'entity_type',
  'scope',
  'id[]',
  'id[a]',
  '__proto__',
  'constructor',
  '',
  'ID',
  'Id',
  'verbose',
  'limt',
  'read_only',
);

export const query = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.array(fc.tuple(paramName, text), { maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&')),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.constantFrom(
          'a',
          'id',
          'q',
          '=',
          '&',
          '%',
          '%00',
          '%FF',
          '%zz',
          '%2',
          '%C0%AF',
          '%E2%80%AE',
          '%u0041',
          '+',
          '[',
          ']',
          ';',
          '?',
          '1',
          '1000',
          '%0D%0A',
        ),
        { maxLength: 30 },
      )
      .map((parts) => parts.join('')),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 15_000 }).map((n) => `q=${'a'.repeat(n)}&id=1`) },
);

/** Any JSON value, including the ones JSON.stringify cannot make (written as text). */
const jsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '1e999',
      '-1e999',
      '123456789012345678901234567890',
      '-0',
      '1.0',
      '1000.0',
      '1e3',
      '0.1e4',
      '"1000"',
      '"\\u0000"',
      '"\\ud800"',
      '"\\udc00x"',
      '"a\\u0000b"',
      '"\\u001b"',
      'true',
      'null',
      '[]',
      '{}',
      '[1000]',
      '{"$gt": 0}',
      '"' + 'é'.repeat(20_001) + '"',
      '"' + ' '.repeat(30) + '"',
    ),
  },
  { weight: 1, arbitrary: text.map((t) => JSON.stringify(t)) },
);
const jsonField = fc.constantFrom(
  'id',
  'item_id',
  'status',
  'priority',
  'deadline',
  'requires_answer',
  'text',
  'document_links',
  'kind',
  'title',
  'url',
  '__proto__',
  'constructor',
  'scope',
  '',
  'dedline',
  'colour',
);

/** A JSON body: the route's own fields with wrong values, deep nesting, huge strings, broken bytes. */
export const jsonBody = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .array(fc.tuple(jsonField, jsonText), { maxLength: 6 })
      .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        id: fc.constantFrom(1000, 1001, 2000, 4000, 1),
        status: fc.constantFrom('done', 'pending', 'DONE', 'closed'),
        link: fc.array(fc.record({ title: text, url: text, kind: text }), { maxLength: 3 }),
      })
      .map(({ id, status, link }) => JSON.stringify({ id, item_id: id, status, text: 'fuzz', priority: 'low', document_links: link })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 10, max: 50_000 })
      .map((depth) => `{"id":1000,"text":"x","deep":${'['.repeat(depth)}${']'.repeat(depth)}}`),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 10, max: 20_000 }).map((depth) => `{"id":1000,"status":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`),
  },
  { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 900_000 }).map((n) => JSON.stringify({ item_id: 1000, text: 'y'.repeat(n) })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '{',
      '{"id":',
      '{"id":1000,}',
      '{"id":1000}}',
      "{'id':1000}",
      '{"id":1000,"id":"x"}',
      '\ufeff{"id":1000}',
      'null',
      '[{"id":1000}]',
    ),
  },
);
export const withBadBytes = (body: string) =>
  fc
    .tuple(
      fc.nat(),
      fc.uint8Array({ minLength: 1, maxLength: 4 }).map((a) => Buffer.from(a.map((b) => 0x80 | b))),
    )
    .map(([at, bytes]) => {
      const buf = Buffer.from(body, 'utf8');
      const i = at % (buf.length + 1);
      return Buffer.concat([buf.subarray(0, i), bytes, buf.subarray(i)]);
    });
