import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, languageOf, writeKeyField } from '../layout.js';

/**
 * The project page's "Invite" and "Send to companies" for its managers (docs/design.md §20); `refused`: why the packs
 * were not sent (email not set up).
 */
export function companyLinks(session: WebSession, projectId: number, refused: string | null): SafeHtml {
  const { t } = languageOf(session);
  return html`<div data-testid="company-links"><div class="toolbar">
<a class="button secondary" href="/projects/${projectId}/invite">${t('invite.link')}</a>
<form method="post" action="/projects/${projectId}/company-packs" class="inline">
${csrfField(session)}${writeKeyField()}
<button type="submit" class="secondary" aria-describedby="company-packs-hint${refused ? ' company-packs-error' : ''}">${t('packs.submit')}</button>
</form>
</div>
<p class="muted" id="company-packs-hint">${t('packs.hint')}</p>
${refused ? html`<p class="field-error" id="company-packs-error" role="alert">${refused}</p>` : ''}
</div>`;
}

/** The notice after "Send to companies": how many packs went to the queue, how many had gone out already. */
export function packsNotice(session: WebSession, query: string | undefined): string | null {
  const match = /^(\d{1,6}),(\d{1,6})$/.exec(query ?? '');
  if (!match) return null;
  return languageOf(session).t('packs.sent', { queued: Number(match[1]), already: Number(match[2]) });
}
