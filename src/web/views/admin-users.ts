import { USER_ROLES } from '../../domain/values.js';
import type { UserAccount } from '../../features/admin/users-admin.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html } from '../html.js';
import { badge, crumbs, csrfField, page, time, writeKeyField } from '../layout.js';
import type { FormFailure } from '../web-write.js';
import { FormState } from './forms.js';

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
  const state = new FormState('new-user', m.failure ?? null);
  const csrf = csrfField(session);
  return page({
    title: 'Users',
    session,
    path: '/admin',
    notice: m.notice,
    error: m.error,
    body: html`${crumbs([{ href: '/admin', label: 'Administration' }])}
<h1>Users</h1>
<table>
<thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">State</th><th scope="col"><span class="sr-only">Action</span></th></tr></thead>
<tbody>${users.map(
      (u) => html`<tr data-testid="user-row">
<td>${u.name}</td><td data-label="Email">${u.email}</td><td data-label="Role">${u.role}</td><td data-label="Created">${time(u.created_at, '—', session.timeZone)}</td>
<td data-label="State">${badge(u.active ? 'active' : 'deactivated')}</td>
<td>${
        u.id === session.user.id
          ? html`<span class="muted">you</span>`
          : html`<form method="post" action="/admin/users/${u.id}/active" class="inline"
  ${u.active ? html`data-confirm="${`Deactivate ${u.name}? Their sessions end and their API tokens stop working at once.`}"` : ''}>
${csrf}${writeKeyField()}<input type="hidden" name="active" value="${u.active ? '0' : '1'}">
<button type="submit" class="small ${u.active ? 'danger' : 'secondary'}">${u.active ? 'Deactivate' : 'Reactivate'}</button></form>`
      }</td></tr>`,
    )}</tbody></table>
<section class="card" aria-labelledby="new-user-title">
<h2 id="new-user-title">New user</h2>
<form method="post" action="/admin/users">
${csrf}${writeKeyField()}
${state.summary({ email: ['user-email', 'Email address'], name: ['user-name', 'Full name'], password: ['user-password', 'Initial password'], role: ['user-role', 'Global role'] })}
<label for="user-email">Email address</label><input id="user-email" type="email" name="email" required value="${form.email}" ${state.aria('email', 'user-email')}>
${state.message('email', 'user-email')}
<label for="user-name">Full name</label><input id="user-name" type="text" name="name" required maxlength="200" value="${form.name}" ${state.aria('name', 'user-name')}>
${state.message('name', 'user-name')}
<label for="user-role">Global role</label>
<select id="user-role" name="role">${USER_ROLES.map((r) => html`<option value="${r}" ${form.role === r ? html`selected` : ''}>${r}</option>`)}</select>
<label for="user-password">Initial password</label>
<input id="user-password" type="password" name="password" autocomplete="new-password" minlength="8" aria-describedby="user-password-help">
<p class="muted" id="user-password-help">At least 8 characters. Leave empty for an account that cannot sign in to the web interface.</p>
<div class="actions"><button type="submit">Create user</button></div>
</form>
</section>`,
  }).value;
}
