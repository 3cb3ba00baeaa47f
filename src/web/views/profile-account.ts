import { timeZoneChoices, zonedTime } from '../../domain/time-zones.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { ProjectRole } from '../../features/users/users.service.js';
import { html } from '../html.js';
import { LANGUAGE_NAMES, LANGUAGES } from '../../i18n/i18n.js';
import { csrfField, languageOf, writeKeyField } from '../layout.js';
import type { FormFailure } from '../web-write.js';
import { FormState, selected } from './forms.js';

/** What the account blocks of the Profile show: who you are and where, your time zone, your password. */
export interface AccountModel {
  session: WebSession;
  projectRoles: ProjectRole[];
  failure: FormFailure | null;
  now: Date;
}

/** Who you are: name, email, and your role in each project (an administrator's in all of them). */
export function youBlock(m: AccountModel) {
  const { user } = m.session;
  return html`<section class="card" aria-labelledby="me-title">
<h2 id="me-title">You</h2>
<dl class="facts"><dt>Name</dt><dd>${user.name}</dd><dt>Email</dt><dd>${user.email}</dd>
${user.role === 'admin' ? html`<dt>Access</dt><dd>Administrator: every project, and the administration pages</dd>` : ''}</dl>
<h3 id="roles-title">Your projects</h3>
${
  m.projectRoles.length
    ? html`<ul aria-labelledby="roles-title" data-testid="project-roles">${m.projectRoles.map(
        (r) =>
          html`<li data-testid="project-role"><a href="/projects/${r.projectId}">${r.name}</a>${r.archived ? html` <span class="muted">(archived)</span>` : ''} — ${r.role}${
            r.limited ? html` <span class="muted">(limited to some sections or checklists)</span>` : ''
          }</li>`,
      )}</ul>`
    : html`<p class="muted">You are not a member of any project${user.role === 'admin' ? ' (as an administrator you see them all)' : ''}.</p>`
}
</section>`;
}

/** The time zone every time is shown in; while none is chosen the script preselects the browser's. */
export function timeZoneBlock(m: AccountModel) {
  const state = new FormState('time-zone', m.failure);
  const current = state.value('time_zone', m.session.timeZone ?? '');
  const zones = timeZoneChoices();
  const extra = current && !zones.includes(current) ? [current] : [];
  return html`<section class="card" aria-labelledby="time-zone-title">
<h2 id="time-zone-title">Time zone</h2>
<p class="muted" id="time-zone-help">Times in this interface are shown in this zone${
    m.session.timeZone
      ? html`: it is now <span data-testid="time-zone-now">${zonedTime(m.now.toISOString(), m.session.timeZone)}</span>`
      : ' (none chosen yet: UTC)'
  }.</p>
<form method="post" action="/profile/time-zone">${csrfField(m.session)}${writeKeyField()}
${state.summary({ time_zone: ['time-zone', 'Time zone'] })}
<label for="time-zone">Time zone</label>
<select id="time-zone" name="time_zone" data-browser-time-zone aria-describedby="time-zone-help${state.errorOf('time_zone') ? ' time-zone-error' : ''}"${
    state.errorOf('time_zone') ? html` aria-invalid="true"` : ''
  }>
<option value="" ${selected(current === '')}>Not chosen (UTC)</option>
${[...extra, ...zones].map((z) => html`<option value="${z}" ${selected(current === z)}>${z.replace(/_/g, ' ')}</option>`)}
</select>${state.message('time_zone', 'time-zone')}
<div class="actions"><button type="submit">Save time zone</button></div>
</form>
</section>`;
}

/** The interface's language (docs/design.md §23): the languages named in themselves, or the browser's choice. */
export function languageBlock(m: AccountModel) {
  const { language, t } = languageOf(m.session);
  const chosen = m.session.chosenLanguage;
  return html`<section class="card" aria-labelledby="language-title">
<h2 id="language-title">${t('profile.language.title')}</h2>
<p class="muted" id="language-help">${t('profile.language.help', { language: LANGUAGE_NAMES[language] })}</p>
<form method="post" action="/profile/language">${csrfField(m.session)}${writeKeyField()}
<label for="language">${t('profile.language.title')}</label>
<select id="language" name="language" aria-describedby="language-help">
<option value="" ${selected(chosen === null)}>${t('profile.language.browser')}</option>
${LANGUAGES.map((l) => html`<option value="${l}" lang="${l}" ${selected(chosen === l)}>${LANGUAGE_NAMES[l]}</option>`)}
</select>
<div class="actions"><button type="submit">${t('profile.language.save')}</button></div>
</form>
</section>`;
}

/** A password change: the current one, the new one twice; other sessions end. */
export function passwordBlock(m: AccountModel) {
  const state = new FormState('password', m.failure);
  const field = (name: string, id: string, label: string, autocomplete: string, help = '') =>
    html`<label for="${id}">${label}</label>
<input id="${id}" type="password" name="${name}" autocomplete="${autocomplete}" required ${name === 'current_password' ? '' : html`minlength="8"`}
  ${state.errorOf(name) ? html`aria-invalid="true" aria-describedby="${id}-error${help ? ` ${id}-help` : ''}"` : help ? html`aria-describedby="${id}-help"` : ''}>
${help ? html`<p class="muted" id="${id}-help">${help}</p>` : ''}${state.message(name, id)}`;
  return html`<section class="card" aria-labelledby="password-title">
<h2 id="password-title">Password</h2>
<form method="post" action="/profile/password">${csrfField(m.session)}${writeKeyField()}
${state.summary({
  current_password: ['current-password', 'Current password'],
  new_password: ['new-password', 'New password'],
  confirm_password: ['confirm-password', 'New password again'],
})}
${field('current_password', 'current-password', 'Current password', 'current-password')}
${field('new_password', 'new-password', 'New password', 'new-password', 'At least 8 characters.')}
${field('confirm_password', 'confirm-password', 'New password again', 'new-password')}
<p class="muted">Changing it signs you out everywhere else (other browsers and devices); this session stays.</p>
<div class="actions"><button type="submit">Change password</button></div>
</form>
</section>`;
}
