import { message } from '../i18n/i18n.js';
import { invalidField } from '../i18n/reasons.js';
import { isCalendarDate, LINK_KINDS, type LinkKind, MAX_LINK_TITLE_LENGTH, MAX_LINKS, MAX_NAME_LENGTH, MAX_TEXT_LENGTH } from './values.js';

/**
 * Rules for user-supplied values that a JSON schema cannot express (trimming, code-point lengths,
 * URL parsing, calendar dates). Shared by every write that takes them, whatever the API version;
 * each refusal is a 422 naming the field.
 */

/** The longest URL kept in a link; longer ones are refused rather than cut. */
const MAX_URL_LENGTH = 4096;

export interface DocumentLinkInput {
  kind?: string;
  title: string;
  url: string;
}

export interface NewDocumentLink {
  kind: LinkKind;
  title: string;
  url: string;
}

const codePoints = (value: string) => [...value].length;

// NUL cannot be stored in PostgreSQL text; a lone surrogate is not a character at all.
function storableText(value: string): boolean {
  return !value.includes('\u0000') && !/\p{Cs}/u.test(value);
}

/** Comment and answer text: stored trimmed, 1 to 20 000 characters (code points). */
export function normalizeText(value: string, field = 'text'): string {
  const text = value.trim();
  if (!text) throw invalidField(field, 'reason.notEmpty');
  if (codePoints(text) > MAX_TEXT_LENGTH) throw invalidField(field, 'reason.atMost', { max: MAX_TEXT_LENGTH });
  if (!storableText(text)) throw invalidField(field, 'reason.unstorable');
  return text;
}

/** A trimmed name of 1 to `max` characters (code points), or a 422 naming the field. */
export function requiredText(field: string, value: string | undefined, max: number): string {
  const text = (value ?? '').trim();
  if (!text || codePoints(text) > max) throw invalidField(field, 'reason.length', { max });
  if (!storableText(text)) throw invalidField(field, 'reason.unstorable');
  return text;
}

/**
 * What no name may hold: control characters (C0, DEL, C1, the line and paragraph separators) and the
 * bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which make a name shown in a
 * list, a notification or a report read as something else ("Trojan Source"). The plain direction marks (U+200E,
 * U+200F) stay allowed: they cannot reorder what follows them.
 */
const NOT_IN_A_NAME = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/** Why `value` cannot be a name (the refusal's message, naming the first character), or null when it can. */
export function nameProblem(value: string): string | null {
  const reason = nameReason(value);
  return reason && message('en', reason.key, reason.values);
}

/** `nameProblem` as a message key and its arguments (a 422's reason, said in the page's language). */
export function nameReason(value: string): { key: 'reason.nameControl'; values: { code: string } } | null {
  const found = NOT_IN_A_NAME.exec(value)?.[0];
  if (found === undefined) return null;
  return { key: 'reason.nameControl', values: { code: `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` } };
}

/**
 * A name or other short one-line text (a user's, a project's, a section's, a checklist's, a token's, an OAuth
 * client's, a company's): trimmed, 1 to `max` characters, without control characters or direction overrides;
 * otherwise a 422 naming the field. One rule for every name, wherever it is written.
 */
export function requiredName(field: string, value: string | undefined, max = MAX_NAME_LENGTH): string {
  const text = requiredText(field, value, max);
  const problem = nameReason(text);
  if (problem) throw invalidField(field, problem.key, problem.values);
  return text;
}

/** A trimmed optional text of at most `max` characters (code points). */
export function optionalText(field: string, value: string | undefined, max: number): string {
  const text = (value ?? '').trim();
  if (codePoints(text) > max) throw invalidField(field, 'reason.atMost', { max });
  if (!storableText(text)) throw invalidField(field, 'reason.unstorable');
  return text;
}

/**
 * What a valid deadline is, written once for every place that takes one (the v1 planning write, the web's
 * "Add item", planning, bulk changes and "Return to rework", a project's deadline): a real calendar date
 * `YYYY-MM-DD`, spaces around it ignored; `null` and `""` clear it.
 */
export function normalizeDeadline(value: string | null | undefined, field = 'deadline'): string | null {
  const deadline = value?.trim() ?? '';
  if (deadline === '') return null;
  if (!isCalendarDate(deadline)) throw invalidField(field, 'reason.deadlineDate');
  return deadline;
}

/**
 * The day that is still "today" somewhere (the earliest time zone, UTC−12): a deadline given in a web form is
 * refused only when it has passed for everyone, so nobody's own "today" is ever refused, whatever their zone.
 */
export function earliestToday(now: Date): string {
  return new Date(now.getTime() - 12 * 3600_000).toISOString().slice(0, 10);
}

/**
 * The web forms' rule beside the date's own (docs/decisions.md, "One deadline rule"): a deadline set or changed
 * from a form (create, planning, bulk changes, rework) is today or later; the one the item already has is
 * kept as it is, even when it has passed (an overdue item's priority can still be changed). The v1 planning
 * write keeps its contract: any real date.
 */
export function assertDeadlineAhead(deadline: string | null, kept: string | null, now: Date, field = 'deadline'): void {
  if (deadline === null || deadline === kept) return;
  const today = earliestToday(now);
  if (deadline < today) throw invalidField(field, 'reason.todayOrLater', { today });
}

/** A deadline from a web form: the date's rule, then the forms' one; `required` (rework) refuses an empty one. */
export function formDeadline(
  value: string | null | undefined,
  options: { now: Date; kept?: string | null; required?: boolean; field?: string },
): string | null {
  const field = options.field ?? 'deadline';
  const deadline = normalizeDeadline(value, field);
  if (deadline === null && options.required) throw invalidField(field, 'reason.giveDate');
  assertDeadlineAhead(deadline, options.kept ?? null, options.now, field);
  return deadline;
}

/** An absolute http(s) URL, returned in its normalized form (what a browser would open). */
function normalizeUrl(value: string, field: string): string {
  const trimmed = value.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw invalidField(field, 'reason.absoluteUrl');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw invalidField(field, 'reason.absoluteUrl');
  }
  if (url.href.length > MAX_URL_LENGTH) throw invalidField(field, 'reason.atMost', { max: MAX_URL_LENGTH });
  return url.href;
}

/**
 * A list of document links (of an item or of an answer): every link checked, the first bad one
 * refused by its position (`document_links[2].url`); `kind` defaults to `document`.
 */
export function normalizeDocumentLinks(links: readonly DocumentLinkInput[], field = 'document_links'): NewDocumentLink[] {
  if (links.length > MAX_LINKS) throw invalidField(field, 'reason.atMostLinks', { max: MAX_LINKS });
  return links.map((link, i) => {
    const at = `${field}[${i}]`;
    const kind = link.kind ?? 'document';
    if (!(LINK_KINDS as readonly string[]).includes(kind)) {
      throw invalidField(`${at}.kind`, 'reason.mustBeOneOf', { values: LINK_KINDS.join(', ') });
    }
    const title = link.title.trim();
    if (!title) throw invalidField(`${at}.title`, 'reason.notEmpty');
    if (codePoints(title) > MAX_LINK_TITLE_LENGTH) {
      throw invalidField(`${at}.title`, 'reason.atMost', { max: MAX_LINK_TITLE_LENGTH });
    }
    if (!storableText(title)) throw invalidField(`${at}.title`, 'reason.unstorable');
    return { kind: kind as LinkKind, title, url: normalizeUrl(link.url, `${at}.url`) };
  });
}

/** "Move up" or "Move down" of a section, checklist or item: -1 or 1, else 422 on `direction`. */
export function moveDirection(value: string): -1 | 1 {
  if (value !== 'up' && value !== 'down') throw invalidField('direction', 'reason.upOrDown');
  return value === 'up' ? -1 : 1;
}
