import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html, type SafeHtml } from '../html.js';
import { languageOf } from '../layout.js';

/** The project page's "Invite" for its managers (docs/design.md §20). */
export function companyLinks(session: WebSession, projectId: number): SafeHtml {
  const { t } = languageOf(session);
  return html`<p class="toolbar" data-testid="company-links">
<a class="button secondary" href="/projects/${projectId}/invite">${t('invite.link')}</a>
</p>`;
}
