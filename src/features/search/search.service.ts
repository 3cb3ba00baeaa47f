import { FTS5_FOLDING_GAPS, type SearchDoc, type SearchEntityType, type SearchRepository, type SearchScope } from './search.repository.js';

export { SEARCH_ENTITY_TYPES, type SearchEntityType } from './search.repository.js';

export interface SearchHit {
  item_id: number | null;
  entity_type: SearchEntityType;
  entity_id: number;
  project_id: number;
  title: string;
  snippet: string;
}

export interface SearchQuery {
  q: string | null;
  entityType: SearchEntityType | null;
  itemId: number | null;
  limit: number;
  offset: number;
}

/** What the user sees of the project: 'all', or the ids of the checklists whose items (and sections) they see. */
export interface SearchVisibility {
  projectId: number;
  checklistIds: readonly number[] | 'all';
  sectionIds: readonly number[] | 'all';
  /** docs/design.md §20: a member limited to their company's items (null: they have none); absent: no limit. */
  companyId?: number | null;
}

export interface SearchService {
  search(visibility: SearchVisibility, query: SearchQuery): Promise<{ hits: SearchHit[]; total: number }>;
  /** The items with at least one match of `q` (in their own text or what hangs on them), without building hits. */
  itemIds(visibility: SearchVisibility, q: string): Promise<Set<number>>;
}

export const TITLE_MAX_LENGTH = 120;
export const SNIPPET_MAX_LENGTH = 160;
/** Characters of context kept before the match in a snippet. */
const SNIPPET_LEAD = 40;
/** Scan prefilter: a handful of character pairs already narrows well; more only lengthens the SQL. */
const MAX_PREFILTER_GROUPS = 16;

/** docs/search.md: structure first, then the item, then what was said about it. */
const TYPE_RANK: Record<SearchEntityType, number> = {
  project: 0,
  section: 1,
  checklist: 2,
  item: 3,
  answer: 4,
  comment: 5,
  link: 6,
};

/** Where the query was found: the title, the second field, a custom field's value, or (items only) the name of the company that holds it. */
type Field = 'title' | 'body' | 'value' | 'company';

interface Match {
  doc: SearchDoc;
  /** The first field that holds the query; `value`: only a custom field's value (docs/design.md §21). */
  field: Field;
  /** For a `value` match: "<field name>: <value>", what the snippet is cut from. */
  valueText?: string;
  /** The lower-cased query; null for an item listing without q. */
  needle: string | null;
  /** field `company`: the name of the company holding the item. */
  companyName?: string;
}

/** What the search's functions are given. */
export interface SearchDeps {
  repository: SearchRepository;
  dialect: 'sqlite' | 'postgres';
  /** PostgreSQL's folding gaps, probed once per service (a failed probe is tried again). */
  cache: { postgresGaps?: Promise<RegExp> };
}

async function indexCanAnswer(deps: SearchDeps, needle: string): Promise<boolean> {
  // Trigram indexes know nothing below three characters; a NUL would end the FTS5 query text.
  if ([...needle].length < 3 || needle.includes('\u0000')) return false;
  if (deps.dialect === 'sqlite') return !FTS5_FOLDING_GAPS.test(needle);
  const { cache } = deps;
  cache.postgresGaps ??= foldingGapsOfPostgres(deps.repository).catch((error: unknown) => {
    cache.postgresGaps = undefined;
    throw error;
  });
  return !(await cache.postgresGaps).test(needle);
}

/** Every document of the scope that matches, unsorted. */
async function matchesOf(deps: SearchDeps, visibility: SearchVisibility, query: Omit<SearchQuery, 'limit' | 'offset'>): Promise<Match[]> {
  const scope: SearchScope = { ...visibility, entityType: query.entityType };
  // Blank counts as absent (docs/design.md §5), whoever forgot to normalise it.
  const q = query.q !== null && query.q.trim() !== '' ? query.q : null;
  let matches: Match[];
  if (q === null) {
    if (query.itemId === null) throw new Error('search needs q or itemId');
    const docs = await deps.repository.findByItem(scope, query.itemId);
    matches = docs.map((doc) => ({ doc, field: 'title', needle: null }));
  } else {
    const needle = lowerCase(q);
    const docs =
      query.itemId !== null
        ? await deps.repository.findByItem(scope, query.itemId)
        : (await indexCanAnswer(deps, needle))
          ? await deps.repository.findByIndex(scope, needle)
          : await deps.repository.findByScan(scope, requiredAlternatives(needle));
    // The SQL side only proposes: the rule is JavaScript's Unicode lower-casing, checked here.
    matches = [];
    for (const doc of docs) {
      const match = locate(doc, needle);
      if (match) matches.push(match);
    }
    if (query.entityType === null || query.entityType === 'item')
      matches.push(...(await valueMatches(deps, visibility, needle, query.itemId, matches)));
    if (query.itemId === null) matches.push(...(await heldByCompanyNamed(deps, scope, needle, matches)));
  }
  return matches;
}

/**
 * The items found only by a text or choice field's value (docs/design.md §21: search finds field values): one
 * hit per item, after those found in their own text; the same rule (JavaScript lower-casing) decides.
 */
async function valueMatches(
  deps: SearchDeps,
  visibility: SearchVisibility,
  needle: string,
  itemId: number | null,
  found: readonly Match[],
): Promise<Match[]> {
  const seen = new Set(found.filter((m) => m.doc.entity_type === 'item').map((m) => m.doc.entity_id));
  const matches: Match[] = [];
  for (const candidate of await deps.repository.findByFieldValue(
    { ...visibility, entityType: 'item' },
    requiredAlternatives(needle),
    itemId,
  )) {
    if (seen.has(candidate.entity_id) || !lowerCase(candidate.value).includes(needle)) continue;
    seen.add(candidate.entity_id);
    const { field_name: name, value, ...doc } = candidate;
    matches.push({ doc, field: 'value', needle, valueText: `${name}: ${value}` });
  }
  return matches;
}

/**
 * docs/design.md §20: the items held by a company whose name contains the query (the same rule: JavaScript's
 * lower-casing), those not already found by their own text; ranked after every text match of their type.
 */
async function heldByCompanyNamed(deps: SearchDeps, scope: SearchScope, needle: string, found: readonly Match[]): Promise<Match[]> {
  if (scope.entityType !== null && scope.entityType !== 'item') return [];
  const named = (await deps.repository.companyNames()).filter((c) => lowerCase(c.name).includes(needle));
  if (named.length === 0) return [];
  const nameOf = new Map(named.map((c) => [c.id, c.name]));
  const already = new Set(found.filter((m) => m.doc.entity_type === 'item').map((m) => m.doc.entity_id));
  const held = await deps.repository.itemsHeldBy(scope, [...nameOf.keys()]);
  return held
    .filter((doc) => !already.has(doc.entity_id))
    .map(({ company_id, ...doc }) => ({ doc, field: 'company' as const, needle, companyName: nameOf.get(Number(company_id)) ?? '' }));
}

async function search(deps: SearchDeps, visibility: SearchVisibility, query: SearchQuery) {
  const matches = await matchesOf(deps, visibility, query);
  matches.sort(byRank);
  const page = matches.slice(query.offset, query.offset + query.limit);
  return { hits: page.map(toHit), total: matches.length };
}

async function itemIds(deps: SearchDeps, visibility: SearchVisibility, q: string) {
  const matches = await matchesOf(deps, visibility, { q, entityType: null, itemId: null });
  return new Set(matches.flatMap(({ doc }) => (doc.item_id === null ? [] : [doc.item_id])));
}

export function createSearchService(repository: SearchRepository, dialect: 'sqlite' | 'postgres'): SearchService {
  const deps: SearchDeps = { repository, dialect, cache: {} };
  return { search: search.bind(null, deps), itemIds: itemIds.bind(null, deps) };
}

/** The case folding the API promises: Unicode lower-casing, locale-independent, nothing else (ё ≠ е, é ≠ e). */
function lowerCase(text: string): string {
  return text.toLowerCase();
}

function locate(doc: SearchDoc, needle: string): Match | null {
  for (const field of ['title', 'body'] as const) {
    const text = field === 'title' ? doc.title_text : doc.body_text;
    // Lower-casing leaves lower-case characters as they are, so the query found as it is (the usual case) is found
    // in the lower-cased text too: the text is lower-cased only when it is not. Where the match starts is
    // worked out for the page's hits alone (toHit).
    if (text.includes(needle) || lowerCase(text).includes(needle)) return { doc, field, needle };
  }
  return null;
}

/** The UTF-16 offset in `text` of the first match of `needle` in its lower case (`text` holds one: locate). */
function findLowerCased(text: string, needle: string): number {
  const lowered = lowerCase(text);
  const at = lowered.indexOf(needle);
  if (lowered.length === text.length) return at;
  // Lower-casing changed the length (İ becomes two code points): walk back to the offset in the text.
  return offsetInText(text, at);
}

function offsetInText(text: string, loweredOffset: number): number {
  let offset = 0;
  let lowered = 0;
  for (const ch of text) {
    if (lowered >= loweredOffset) break;
    // Per character, Σ lowers to σ: the same length as the final ς the whole-string lowering may give.
    lowered += lowerCase(ch).length;
    offset += ch.length;
  }
  return offset;
}

/** Within a type: matches in the title, then in the second field, then only in a custom field's value, then only by the holding company's name. */
const FIELD_RANK: Record<Field, number> = { title: 0, body: 1, value: 2, company: 3 };

function byRank(a: Match, b: Match): number {
  return (
    TYPE_RANK[a.doc.entity_type] - TYPE_RANK[b.doc.entity_type] ||
    FIELD_RANK[a.field] - FIELD_RANK[b.field] ||
    a.doc.entity_id - b.doc.entity_id
  );
}

function toHit(match: Match): SearchHit {
  const { doc } = match;
  if (match.field === 'company') {
    const name = match.companyName ?? '';
    const snippet = clip(name, SNIPPET_MAX_LENGTH);
    return {
      item_id: doc.item_id,
      entity_type: doc.entity_type,
      entity_id: doc.entity_id,
      project_id: doc.project_id,
      title: clip(doc.title_text, TITLE_MAX_LENGTH),
      snippet,
    };
  }
  const text = match.field === 'title' ? doc.title_text : match.field === 'body' ? doc.body_text : (match.valueText ?? '');
  return {
    item_id: doc.item_id,
    entity_type: doc.entity_type,
    entity_id: doc.entity_id,
    project_id: doc.project_id,
    title: clip(doc.title_text, TITLE_MAX_LENGTH),
    snippet: match.needle === null ? clip(text, SNIPPET_MAX_LENGTH) : around(text, findLowerCased(text, match.needle), SNIPPET_MAX_LENGTH),
  };
}

const collapseSpace = (text: string) => text.replace(/\s+/g, ' ');
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * At most `max` UTF-16 units, never half a surrogate pair (so also at most `max` characters),
 * with line breaks folded to spaces: titles and snippets are one line.
 */
function clip(text: string, max: number): string {
  const line = collapseSpace(text).trim();
  if (line.length <= max) return line;
  let cut = max - 1;
  if (isLowSurrogate(line.charCodeAt(cut))) cut -= 1;
  return `${line.slice(0, cut).trimEnd()}…`;
}

/** A window of `text` starting a little before the match at `start`, `…` where it was cut. */
function around(text: string, start: number, max: number): string {
  if (collapseSpace(text).trim().length <= max) return clip(text, max);
  const room = max - 2; // both ellipses
  let from = Math.max(0, start - SNIPPET_LEAD);
  let to = Math.min(text.length, from + room);
  from = Math.max(0, to - room);
  if (from > 0) {
    // Start on a word when one begins shortly before the match.
    const space = text.slice(from, Math.min(start, from + 15)).search(/\s/);
    if (space >= 0) from += space + 1;
    if (isLowSurrogate(text.charCodeAt(from))) from += 1;
  }
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to -= 1;
  let body = collapseSpace(text.slice(from, to));
  if (from > 0) body = `…${body.trimStart()}`;
  if (to < text.length) body = `${body.trimEnd()}…`;
  return body;
}

/** Lower-case forms, in full: the whole-string lowering turns a word-final Σ into ς, otherwise into σ. */
function lowerings(upper: string): string[] {
  return upper === 'Σ' ? ['σ', 'ς'] : [lowerCase(upper)];
}

/** Cased letters all sit in the first two planes (Unicode 16); the test checks the planes above. */
const LAST_CASED_CODE_POINT = 0x1ffff;

interface CaseTables {
  /** Every character that lower-casing changes. */
  cased: string[];
  /** Lower-case code point → characters whose lower case contains / starts with / ends with it. */
  containing: Map<string, string[]>;
  starting: Map<string, string[]>;
  ending: Map<string, string[]>;
  /** Two adjacent lower-case code points → the characters whose lower case holds both (İ → "i̇"). */
  spanning: Map<string, string[]>;
}

let caseTables: CaseTables | undefined;

function caseTablesOf(): CaseTables {
  if (caseTables) return caseTables;
  const tables: CaseTables = { cased: [], containing: new Map(), starting: new Map(), ending: new Map(), spanning: new Map() };
  const add = (map: Map<string, string[]>, key: string, ch: string) => {
    const list = map.get(key);
    if (!list) map.set(key, [ch]);
    else if (!list.includes(ch)) list.push(ch);
  };
  for (let cp = 0; cp <= LAST_CASED_CODE_POINT; cp += 1) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    if (lowerCase(ch) === ch) continue;
    tables.cased.push(ch);
    for (const lowered of lowerings(ch)) {
      const parts = [...lowered];
      add(tables.starting, parts[0]!, ch);
      add(tables.ending, parts[parts.length - 1]!, ch);
      parts.forEach((part, i) => {
        add(tables.containing, part, ch);
        if (i > 0) add(tables.spanning, parts[i - 1]! + part, ch);
      });
    }
  }
  caseTables = tables;
  return tables;
}

/**
 * Scan prefilter, in strings SQL can look for without knowing Unicode case rules. A text whose
 * lower case contains `needle` holds, for every two adjacent characters of the needle, one of their
 * spellings: upper or lower case each, or one character lower-casing to both. A one-character needle
 * needs one of that character's spellings. The exact check follows in JavaScript.
 */
function requiredAlternatives(needle: string): string[][] {
  const { containing, starting, ending, spanning } = caseTablesOf();
  // PostgreSQL text cannot hold (nor be asked about) NUL; the JavaScript check still sees it.
  const chars = [...needle].filter((ch) => ch !== '\u0000');
  const [only] = chars;
  if (chars.length === 1 && only !== undefined) return [[only, ...(containing.get(only) ?? [])]];
  const groups = new Map<string, string[]>();
  for (let i = 1; i < chars.length && groups.size < MAX_PREFILTER_GROUPS; i += 1) {
    const a = chars[i - 1]!;
    const b = chars[i]!;
    if (groups.has(a + b)) continue;
    const spellings = new Set(spanning.get(a + b) ?? []);
    for (const x of [a, ...(ending.get(a) ?? [])]) for (const y of [b, ...(starting.get(b) ?? [])]) spellings.add(x + y);
    groups.set(a + b, [...spellings]);
  }
  return [...groups.values()];
}

/**
 * PostgreSQL lower() follows the database's locale, which may disagree with JavaScript. Ask it once
 * how it lowers every cased character, and list the query characters for which its trigram index
 * (built on lower(text)) could miss a document: such queries take the scan path.
 */
async function foldingGapsOfPostgres(repository: SearchRepository): Promise<RegExp> {
  const { cased } = caseTablesOf();
  const samples = new Set<string>();
  for (const upper of cased) {
    samples.add(upper);
    for (const lowered of lowerings(upper)) for (const part of lowered) samples.add(part);
  }
  const list = [...samples];
  const loweredList = await repository.lowerInDatabase(list);
  const inDatabase = new Map(list.map((s, i) => [s, loweredList[i] ?? s]));
  const fold = (s: string) => inDatabase.get(s) ?? s;
  const gaps = new Set<string>();
  for (const upper of cased) {
    for (const lowered of lowerings(upper)) {
      const parts = [...lowered];
      // The pattern is lower()ed too: what counts is that both sides land on the same text.
      if (fold(upper) === parts.map(fold).join('')) continue;
      if (parts.length === 1 || [...fold(upper)].length !== 1) {
        for (const part of parts) gaps.add(part);
        continue;
      }
      // One database character against several: a query can only meet it with its first part as
      // its own last character, or its last part as its own first character.
      parts.forEach((part, i) => {
        const atEdge = i === 0 || i === parts.length - 1;
        if (!atEdge || fold(upper) !== fold(part)) gaps.add(part);
      });
    }
  }
  if (gaps.size === 0) return /(?!)/u;
  const escaped = [...gaps].map((ch) => `\\u{${ch.codePointAt(0)?.toString(16)}}`).join('');
  return new RegExp(`[${escaped}]`, 'u');
}
