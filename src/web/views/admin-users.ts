import { USER_ROLES } from '../../domain/values.js';
import type { UserAccount } from '../../features/admin/users-admin.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html } from '../html.js';
import { crumbs, csrfField, languageOf, page, time, writeKeyField } from '../layout.js';
import { stateBadge } from './admin.js';
import type { FormFailure } from '../web-write.js';
import { FormState } from './forms.js';
import type { MessageKey } from '../../i18n/i18n.js';

export interface NewUserForm {
  email: string;
  name: string;
  role: string;
}

/** The users: each with its state (deactivate, reactivate), and the form for a new one. */
export function usersPageView(m: {
  session: WebSession;
  users: UserAccount[];
  form: NewUserForm;
  notice?: string | null;
  error?: string | null;
  /** The refused new-user form: its messages go beside their fields. */
  failure?: FormFailure | null;
}): string {
  const { session, users, form } = m;
  const { t } = languageOf(session);
  const state = new FormState('new-user', m.failure ?? null, t);
  const csrf = csrfField(session);
  return page({
    title: t('admin.users'),
    session,
    path: '/admin',
    notice: m.notice,
    error: m.error,
    body: html`${crumbs([{ href: '/admin', label: t('admin.title') }], t)}
<h1>${t('admin.users')}</h1>
<table>
<thead><tr><th scope="col">${t('admin.name')}</th><th scope="col">${t('admin.email')}</th><th scope="col">${t('admin.role')}</th><th scope="col">${t('admin.created')}</th><th scope="col">${t('admin.state')}</th><th scope="col"><span class="sr-only">${t('admin.action')}</span></th></tr></thead>
<tbody>${users.map(
      (u) => html`<tr data-testid="user-row">
<td>${u.name}</td><td data-label="${t('admin.email')}">${u.email}</td><td data-label="${t('admin.role')}">${t(`admin.userRole.${u.role}` as MessageKey)}</td><td data-label="${t('admin.created')}">${time(u.created_at, '—', session.timeZone)}</td>
<td data-label="${t('admin.state')}">${stateBadge(u.active ? 'active' : 'deactivated', t)}</td>
<td>${
        u.id === session.user.id
          ? html`<span class="muted">${t('admin.you')}</span>`
          : html`<form method="post" action="/admin/users/${u.id}/active" class="inline"
  ${u.active ? html`data-confirm="${t('admin.deactivateConfirm', { name: u.name })}"` : ''}>
${csrf}${writeKeyField()}<input type="hidden" name="active" value="${u.active ? '0' : '1'}">
<button type="submit" class="small ${u.active ? 'danger' : 'secondary'}">${u.active ? t('admin.deactivate') : t('admin.reactivate')}</button></form>`
      }</td></tr>`,
    )}</tbody></table>
<section class="card" aria-labelledby="new-user-title">
<h2 id="new-user-title">${t('admin.newUser')}</h2>
<form method="post" action="/admin/users">
${csrf}${writeKeyField()}
${state.summary({ email: ['user-email', t('admin.emailAddress')], name: ['user-name', t('admin.fullName')], password: ['user-password', t('admin.initialPassword')], role: ['user-role', t('admin.globalRole')] })}
<label for="user-email">${t('admin.emailAddress')}</label><input id="user-email" type="email" name="email" required value="${form.email}" ${state.aria('email', 'user-email')}>
${state.message('email', 'user-email')}
<label for="user-name">${t('admin.fullName')}</label><input id="user-name" type="text" name="name" required maxlength="200" value="${form.name}" ${state.aria('name', 'user-name')}>
${state.message('name', 'user-name')}
<label for="user-role">${t('admin.globalRole')}</label>
<select id="user-role" name="role">${USER_ROLES.map((r) => html`<option value="${r}" ${form.role === r ? html`selected` : ''}>${t(`admin.userRole.${r}` as MessageKey)}</option>`)}</select>
<label for="user-password">${t('admin.initialPassword')}</label>
<input id="user-password" type="password" name="password" autocomplete="new-password" minlength="8" aria-describedby="user-password-help">
<p class="muted" id="user-password-help">${t('admin.passwordHelp')}</p>
<div class="actions"><button type="submit">${t('admin.createUser')}</button></div>
</form>
</section>`,
  }).value;
}
