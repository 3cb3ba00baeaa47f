import { readdirSync, readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import type admin from './messages/en/admin.json';
import type audit from './messages/en/audit.json';
import type cli from './messages/en/cli.json';
import type cliCommands from './messages/en/cli-commands.json';
import type core from './messages/en/core.json';
import type companies from './messages/en/companies.json';
import type dashboard from './messages/en/dashboard.json';
import type vocabulary from './messages/en/vocabulary.json';
import type errors from './messages/en/errors.json';
import type integrations from './messages/en/integrations.json';
import type items from './messages/en/items.json';
import type photos from './messages/en/photos.json';
import type plans from './messages/en/plans.json';
import type profile from './messages/en/profile.json';
import type project from './messages/en/project.json';
import type scripts from './messages/en/scripts.json';
import type timeline from './messages/en/timeline.json';
import type web from './messages/en/web.json';
import type worklists from './messages/en/worklists.json';
import type emails from './messages/en/emails.json';
import type notifications from './messages/en/notifications.json';
import type reasons from './messages/en/reasons.json';
import type report from './messages/en/report.json';
import type structure from './messages/en/structure.json';

/**
 * The interface's languages (docs/design.md §23): messages in ICU MessageFormat (FormatJS's intl-messageformat),
 * one folder per language under messages/ with one JSON file per part of the interface (core, dashboard, …: the
 * same files in every language); English is complete and the fallback of every other. A language is one folder and
 * one line here; a new part is one file per language and its line in `MessageKey`. v1, events, webhooks, CSV headers and machine codes never pass through here.
 */
export const LANGUAGES = ['en', 'ru', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language named in itself, as the Profile's select offers it. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', ru: 'Русский', de: 'Deutsch' };

/** Every English file's keys: a key no file has is a compile error. */
export type MessageKey =
  | keyof typeof admin
  | keyof typeof audit
  | keyof typeof core
  | keyof typeof dashboard
  | keyof typeof errors
  | keyof typeof integrations
  | keyof typeof items
  | keyof typeof photos
  | keyof typeof plans
  | keyof typeof profile
  | keyof typeof project
  | keyof typeof scripts
  | keyof typeof timeline
  | keyof typeof web
  | keyof typeof worklists
  | keyof typeof vocabulary
  | keyof typeof companies
  | keyof typeof cli
  | keyof typeof cliCommands
  | keyof typeof emails
  | keyof typeof notifications
  | keyof typeof reasons
  | keyof typeof report
  | keyof typeof structure;
/** A message's arguments: numbers (plurals, counts) and strings (names, user content: never parsed as a message). */
export type MessageValues = Record<string, string | number>;

/**
 * A language's files, read beside this module (src/ and dist/ alike: the build copies JSON files as they are, and
 * an import of JSON would need an attribute the build's transform drops). A key in two files is a mistake, refused
 * at start.
 */
function catalogue(language: Language): Partial<Record<MessageKey, string>> {
  const folder = new URL(`./messages/${language}/`, import.meta.url);
  const merged: Record<string, string> = {};
  for (const file of readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const messages = JSON.parse(readFileSync(new URL(file, folder), 'utf8')) as Record<string, string>;
    for (const [key, text] of Object.entries(messages)) {
      if (key in merged) throw new Error(`The message "${key}" is in two files of messages/${language}/`);
      merged[key] = text;
    }
  }
  return merged;
}

const CATALOGS = Object.fromEntries(LANGUAGES.map((l) => [l, catalogue(l)])) as Record<Language, Partial<Record<MessageKey, string>>>;
const en = CATALOGS.en as Record<MessageKey, string>;

export function isLanguage(value: unknown): value is Language {
  return (LANGUAGES as readonly unknown[]).includes(value);
}

/**
 * The language of someone who is not asking now (an email, a notification made by the worker, a report made for
 * them): the one chosen in the Profile, else the one their browser asked for at their last sign-in
 * (`users.browser_language`), else English (docs/decisions.md, "Languages: a user with no stored language").
 */
export function storedLanguage(chosen: string | null | undefined, browser?: string | null): Language {
  if (isLanguage(chosen)) return chosen;
  return isLanguage(browser) ? browser : 'en';
}

/**
 * The language of a page: the one chosen in the Profile, else the first of the browser's `Accept-Language` we speak
 * (by weight, a region falls back to its language: `de-AT` is German), else English. Never an error: anything
 * unknown or malformed is skipped.
 */
export function resolveLanguage(chosen: string | null | undefined, acceptLanguage: string | undefined): Language {
  if (isLanguage(chosen)) return chosen;
  const wanted = (acceptLanguage ?? '')
    .slice(0, 1000)
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)).find(Boolean);
      return { language: tag.trim().toLowerCase().split('-')[0]!, weight: q ? Number(q[1]) : 1, index };
    })
    .filter((w) => w.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  return wanted.map((w) => w.language).find(isLanguage) ?? 'en';
}

/**
 * The language a browser asks for, to remember for what is written to its user later: undefined when the header
 * names no language at all (absent, empty, only `*`, as fetch clients send), else `resolveLanguage`'s (English for
 * languages we do not speak).
 */
export function askedLanguage(acceptLanguage: string | undefined): Language | undefined {
  const named = (acceptLanguage ?? '')
    .slice(0, 1000)
    .split(',')
    .some((part) => /^\s*[a-z]{1,8}(-|;|\s*$)/i.test(part));
  return named ? resolveLanguage(null, acceptLanguage) : undefined;
}

const formats = new Map<string, IntlMessageFormat>();

/** A message in `language` (English where the language lacks it), its arguments filled in. */
export function message(language: Language, key: MessageKey, values?: MessageValues): string {
  const own = CATALOGS[language][key];
  const [lang, source] = own === undefined ? (['en', en[key]] as const) : ([language, own] as const);
  const id = `${lang}\u0000${key}`;
  let format = formats.get(id);
  if (!format) {
    format = new IntlMessageFormat(source, lang, undefined, { ignoreTag: true });
    formats.set(id, format);
  }
  return String(format.format(values));
}

/** The translator of one language: `t('nav.projects')`, `t('items.count', { count: 3 })`. */
export type Translate = (key: MessageKey, values?: MessageValues) => string;

export function translator(language: Language): Translate {
  return (key, values) => message(language, key, values);
}

/** A number as the language writes it (1,234 · 1 234 · 1.234). */
export function formatNumber(language: Language, value: number, fractionDigits = 0): string {
  return value.toLocaleString(language, { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits });
}

/** Whether `key` names a message (a key made of a machine value: `report.status.${status}`). */
export function isMessageKey(key: string): key is MessageKey {
  return key in en;
}

/** The catalogues, for the test that every key and placeholder exists in every language. */
export const catalogs = (): Readonly<Record<Language, Readonly<Record<string, string>>>> => CATALOGS;

/**
 * The browser scripts' words in `language` (messages/<lang>/scripts.json), as the layout hands them to the page: each
 * message by its name without `script.`; a plural message as its form per plural category of the language (the
 * script picks one with `Intl.PluralRules`), a message with arguments as it is (the script fills `{name}` itself).
 */
export function scriptMessages(language: Language): Record<string, string | Record<string, string>> {
  const rules = new Intl.PluralRules(language);
  const samples = new Map<string, number>();
  for (let n = 0; n < 200 && samples.size < rules.resolvedOptions().pluralCategories.length; n++) {
    const category = rules.select(n);
    if (!samples.has(category)) samples.set(category, n);
  }
  const out: Record<string, string | Record<string, string>> = {};
  for (const key of Object.keys(en).filter((k) => k.startsWith('script.')) as MessageKey[]) {
    const source = CATALOGS[language][key] ?? en[key];
    const name = key.slice('script.'.length);
    out[name] = /\{count, plural,/.test(source)
      ? Object.fromEntries([...samples].map(([category, n]) => [category, message(language, key, { count: n })]))
      : source;
  }
  return out;
}

/** A calendar day (YYYY-MM-DD, a deadline: no time zone) as the language writes it: 11 May 2030 · 11 мая 2030 г. */
export function formatDay(language: Language, day: string): string {
  const at = new Date(`${day}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(at.getTime())) return day;
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' }).format(at);
}

/** A moment as the language writes it in a time zone (IANA; UTC when none or unknown), the zone named. */
export function formatMoment(language: Language, at: string | Date, timeZone: string | null): string {
  const when = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(when.getTime())) return String(at);
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short', timeZone: timeZone ?? 'UTC' };
  try {
    return `${new Intl.DateTimeFormat(language, options).format(when)} ${options.timeZone}`;
  } catch {
    return formatMoment(language, when, null);
  }
}
