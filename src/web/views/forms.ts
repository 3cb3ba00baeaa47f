import { html, type SafeHtml } from '../html.js';
import type { FormFailure } from '../web-write.js';

/**
 * What a form shows: the values the user sent when it failed (so nothing typed is lost), otherwise the
 * current ones; and the message beside the field it is about.
 */
export class FormState {
  constructor(
    readonly name: string,
    private readonly failure: FormFailure | null,
  ) {}

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
      return file ? [`Photo ${Number(file[1]) + 1} ${e.message}`] : [];
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

  /** A message about the form as a whole, for the errors not shown beside one of `fields`. */
  summary(fields: readonly string[]): SafeHtml {
    if (!this.failed) return html``;
    // A field ending in `*` stands for every field it begins (link rows); `attachments[]` for each file's.
    const shown = (error: string) =>
      fields.some(
        (f) =>
          f === error || (f.endsWith('*') && error.startsWith(f.slice(0, -1))) || (f.endsWith('[]') && error.startsWith(f.slice(0, -1))),
      );
    const loose = this.failure!.errors.filter((e) => !shown(e.field));
    return loose.length
      ? html`<div class="error" role="alert">${loose.map((e) => html`<p>${e.field ? `${e.field}: ` : ''}${e.message}</p>`)}</div>`
      : html``;
  }
}

export const selected = (on: boolean) => (on ? html`selected` : '');
export const checked = (on: boolean) => (on ? html`checked` : '');
