import { html, type SafeHtml } from '../html.js';
import type { FormFailure } from '../web-write.js';
import type { Translate } from '../../i18n/i18n.js';

/** A form's fields for its error summary: name → [the id of its input, its label]. */
export type SummaryFields = Record<string, readonly [id: string, label: string | ((field: string) => string)]>;

/**
 * The error summary a refused form starts with, on every form page (GOV.UK's pattern): a heading, then each
 * problem as a link to the field it is about (`href`: `#<input id>`), or as text when it is about no one field.
 * Announced when shown (role="alert") and focused by the page's script, so a keyboard or screen reader user
 * starts there.
 */
export function errorSummary(form: string, problems: readonly { text: string; href?: string }[], t?: Translate): SafeHtml {
  if (problems.length === 0) return html``;
  const title = `${form}-error-summary-title`;
  return html`<div class="error-summary" role="alert" aria-labelledby="${title}" tabindex="-1" data-error-summary>
<p class="error-summary-title" id="${title}">${t ? t('form.problem') : 'There is a problem'}</p>
<ul>${problems.map((p) => html`<li>${p.href ? html`<a href="${p.href}">${p.text}</a>` : p.text}</li>`)}</ul>
</div>`;
}

/**
 * What a form shows: the values the user sent when it failed (so nothing typed is lost), otherwise the
 * current ones; and the message beside the field it is about.
 */
export class FormState {
  constructor(
    readonly name: string,
    private readonly failure: FormFailure | null,
    /** The page's translator: the summary's heading and "Photo N" in its language (English without). */
    private readonly t?: Translate,
  ) {}

  private photo(index: number): string {
    return this.t ? this.t('form.photo', { number: index + 1 }) : `Photo ${index + 1}`;
  }

  get failed(): boolean {
    return this.failure?.form === this.name;
  }

  value(field: string, current = ''): string {
    if (!this.failed) return current;
    const sent = this.failure!.values[field];
    return Array.isArray(sent) ? (sent[0] ?? '') : (sent ?? '');
  }

  /** Every value sent for a repeated field (a multiple select) when the form failed, else none. */
  values(field: string): string[] {
    const sent = this.failed ? this.failure!.values[field] : undefined;
    return sent === undefined ? [] : Array.isArray(sent) ? sent : [sent];
  }

  checked(field: string, current: boolean): boolean {
    return this.failed ? this.failure!.values[field] !== undefined : current;
  }

  /** The message for a field; a file input (`attachments[]`) gathers those of its files (`attachments[2]` is photo 3). */
  errorOf(field: string): string | null {
    if (!this.failed) return null;
    const messages = this.failure!.errors.flatMap((e) => {
      if (e.field === field) return [e.message];
      const file = field.endsWith('[]') && e.field.startsWith(field.slice(0, -1)) ? /\[(\d+)\]$/.exec(e.field) : null;
      return file ? [`${this.photo(Number(file[1]))} ${e.message}`] : [];
    });
    return messages.length ? messages.join('; ') : null;
  }

  /** `aria-invalid` and `aria-describedby` for an input, pointing at its message. */
  aria(field: string, id: string): SafeHtml {
    return this.errorOf(field) ? html`aria-invalid="true" aria-describedby="${id}-error"` : html``;
  }

  /** The message beside the input `id` (nothing when the field is fine). */
  message(field: string, id: string): SafeHtml {
    const message = this.errorOf(field);
    return message ? html`<p class="field-error" id="${id}-error">${message}</p>` : html``;
  }

  /**
   * The error summary the refused form starts with (errorSummary): every message, each linking to its field.
   * `fields` names the form's fields: their input's id and label. A key ending in `*` stands for every field it
   * begins (link rows: `link-2-url` is the input `<id prefix>2-url`, its label given by a function); `attachments[]`
   * for each file's (`attachments[2]` is photo 3). A message of no field listed is shown as text.
   */
  summary(fields: SummaryFields): SafeHtml {
    if (!this.failed) return html``;
    const entries = Object.entries(fields);
    const target = (field: string): { href: string; label: string } | null => {
      for (const [name, [id, label]] of entries) {
        if (name === field) return { href: `#${id}`, label: typeof label === 'string' ? label : label(field) };
        if (name.endsWith('*') && field.startsWith(name.slice(0, -1))) {
          const rest = field.slice(name.length - 1);
          return { href: `#${id.replace(/\*$/, '')}${rest}`, label: typeof label === 'string' ? label : label(field) };
        }
        if (name.endsWith('[]') && field.startsWith(name.slice(0, -1))) {
          const file = /\[(\d+)\]$/.exec(field);
          return { href: `#${id}`, label: file ? this.photo(Number(file[1])) : typeof label === 'string' ? label : label(field) };
        }
      }
      return null;
    };
    return errorSummary(
      this.name,
      this.failure!.errors.map((e) => {
        const to = target(e.field);
        return to ? { href: to.href, text: `${to.label}: ${e.message}` } : { text: e.field ? `${e.field}: ${e.message}` : e.message };
      }),
      this.t,
    );
  }
}

export const selected = (on: boolean) => (on ? html`selected` : '');
export const checked = (on: boolean) => (on ? html`checked` : '');
