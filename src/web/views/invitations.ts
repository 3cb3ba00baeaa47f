import type { InvitationOutcome, InvitationState } from '../../features/companies/invitations.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { Language } from '../../i18n/i18n.js';
import { html } from '../html.js';
import { zonedTime } from '../../domain/time-zones.js';
import { crumbs, csrfField, languageOf, page, writeKeyField } from '../layout.js';
import type { FormFailure } from '../web-write.js';
import { checked, FormState, selected } from './forms.js';

/**
 * "Invite" (docs/design.md §20; landmarks "Name", "Email", "Company", "Project role", "Only the company's items",
 * "Send invitation"): the form on its own page under the project, posted back to it.
 */
export function inviteFormView(m: {
  session: WebSession;
  project: { id: number; name: string };
  companies: { id: number; name: string }[];
  failure: FormFailure | null;
}): string {
  const { t } = languageOf(m.session);
  const f = new FormState('invite', m.failure);
  const company = f.value('company');
  const role = f.value('role', 'executor');
  return page({
    title: t('invite.title', { project: m.project.name }),
    session: m.session,
    path: '/projects',
    body: html`${crumbs([
      { href: '/projects', label: 'Projects' },
      { href: `/projects/${m.project.id}`, label: m.project.name },
    ])}
<h1>${t('invite.title', { project: m.project.name })}</h1>
<section class="card" aria-labelledby="invite-heading">
<h2 id="invite-heading" class="sr-only">${t('invite.link')}</h2>
<p class="muted">${t('invite.lead')}</p>
<form method="post" action="/projects/${m.project.id}/invite" data-testid="invite-form">
${csrfField(m.session)}${writeKeyField()}
${f.summary({
  name: ['invite-name', t('invite.name')],
  email: ['invite-email', t('invite.email')],
  company: ['invite-company', t('invite.company')],
  role: ['invite-role', t('invite.role')],
})}
<label for="invite-name">${t('invite.name')}</label>
<input id="invite-name" type="text" name="name" required maxlength="200" autocomplete="off" value="${f.value('name')}" ${f.aria('name', 'invite-name')}>
${f.message('name', 'invite-name')}
<label for="invite-email">${t('invite.email')}</label>
<input id="invite-email" name="email" type="email" required maxlength="320" autocomplete="off" value="${f.value('email')}" ${f.aria('email', 'invite-email')}>
${f.message('email', 'invite-email')}
<label for="invite-company">${t('invite.company')}</label>
<select id="invite-company" name="company" ${f.aria('company', 'invite-company')}>
<option value="">${t('invite.noCompany')}</option>
${m.companies.map((c) => html`<option value="${c.id}" ${selected(company === String(c.id))}>${c.name}</option>`)}
</select>
${f.message('company', 'invite-company')}
<label for="invite-role">${t('invite.role')}</label>
<select id="invite-role" name="role" ${f.aria('role', 'invite-role')}>
<option value="executor" ${selected(role === 'executor')}>${t('invite.roleExecutor')}</option>
<option value="observer" ${selected(role === 'observer')}>${t('invite.roleObserver')}</option>
</select>
${f.message('role', 'invite-role')}
<p class="check"><input id="invite-company-only" type="checkbox" name="company_items_only" value="1" aria-describedby="invite-company-only-hint" ${checked(f.checked('company_items_only', false))}>
<label for="invite-company-only" class="inline">${t('invite.companyItemsOnly')}</label></p>
<p class="muted" id="invite-company-only-hint">${t('invite.companyItemsOnlyHint')}</p>
<div class="actions"><button type="submit">${t('invite.submit')}</button></div>
</form>
</section>`,
  }).value;
}

/** What inviting did, shown once: the link (it is never shown again) or that the person was added. */
export function invitationSentView(m: { session: WebSession; project: { id: number; name: string }; outcome: InvitationOutcome }): string {
  const { t } = languageOf(m.session);
  const o = m.outcome;
  const body =
    o.kind === 'invited'
      ? html`<h1>${t('invite.sentTitle')}</h1>
<section class="card">
<p>${o.emailed ? t('invite.sentEmailed', { email: o.email }) : t('invite.sentNotEmailed', { email: o.email })}</p>
<label for="invitation-link">${t('invite.linkLabel')}</label>
<input id="invitation-link" readonly value="${o.link}" data-testid="invitation-link">
<p class="muted">${t('invite.shownOnce', { expires: zonedTime(o.expiresAt, m.session.timeZone) })}</p>
</section>`
      : html`<h1>${t('invite.addedTitle')}</h1>
<section class="card"><p data-testid="invitation-added">${o.emailed ? t('invite.addedEmailed', { email: o.email }) : t('invite.addedNotEmailed', { email: o.email })}</p></section>`;
  return page({
    title: o.kind === 'invited' ? t('invite.sentTitle') : t('invite.addedTitle'),
    session: m.session,
    path: '/projects',
    body: html`${crumbs([
      { href: '/projects', label: 'Projects' },
      { href: `/projects/${m.project.id}`, label: m.project.name },
    ])}
${body}
<p class="toolbar"><a class="button" href="/projects/${m.project.id}">${t('invite.back')}</a> <a href="/projects/${m.project.id}/invite">${t('invite.another')}</a></p>`,
  }).value;
}

/** The invitation's page (landmarks "Password", "Set password"), or why its link does not work. */
export function invitationPageView(m: {
  language: Language;
  state: InvitationState;
  token: string;
  csrf: string;
  error: string | null;
}): string {
  const { t } = languageOf(null, m.language);
  const s = m.state;
  if (s.state !== 'valid') {
    const why = s.state === 'expired' ? t('invitation.expired') : s.state === 'used' ? t('invitation.used') : t('invitation.unknown');
    return page({
      title: t('invitation.invalidTitle'),
      session: null,
      language: m.language,
      body: html`<section class="card login" aria-labelledby="invitation-title">
<h1 id="invitation-title">${t('invitation.invalidTitle')}</h1>
<p data-testid="invitation-invalid" data-state="${s.state}">${why}</p>
<p><a href="/login">${t('invitation.signIn')}</a></p>
</section>`,
    }).value;
  }
  return page({
    title: t('invitation.title', { project: s.projectName }),
    session: null,
    language: m.language,
    body: html`<section class="card login" aria-labelledby="invitation-title">
<h1 id="invitation-title">${t('invitation.title', { project: s.projectName })}</h1>
<p>${t('invitation.lead', { name: s.name, project: s.projectName, email: s.email })}</p>
<form method="post" action="/invitations/${m.token}">
<input type="hidden" name="_csrf" value="${m.csrf}">
<input type="email" name="email" value="${s.email}" autocomplete="username" hidden aria-hidden="true" tabindex="-1">
<label for="invitation-password">${t('invitation.password')}</label>
<input id="invitation-password" type="password" name="password" autocomplete="new-password" required minlength="8" aria-describedby="invitation-password-hint${m.error ? ' invitation-password-error' : ''}" ${m.error ? html`aria-invalid="true"` : ''} autofocus>
<p class="muted" id="invitation-password-hint">${t('invitation.passwordHint')}</p>
${m.error ? html`<p class="field-error" id="invitation-password-error" role="alert">${m.error}</p>` : ''}
<div class="actions"><button type="submit">${t('invitation.submit')}</button></div>
</form>
</section>`,
  }).value;
}
