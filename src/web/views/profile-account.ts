import { timeZoneChoices, zonedTime } from '../../domain/time-zones.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { ProjectRole } from '../../features/users/users.service.js';
import { html } from '../html.js';
import { LANGUAGE_NAMES, LANGUAGES } from '../../i18n/i18n.js';
import { csrfField, languageOf, writeKeyField } from '../layout.js';
import type { FormFailure } from '../web-write.js';
import { FormState, selected } from './forms.js';
import { roleLabel } from './item-form.js';

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
  const { t } = languageOf(m.session);
  return html`<section class="card" aria-labelledby="me-title">
<h2 id="me-title">${t('profile.you')}</h2>
<dl class="facts"><dt>${t('profile.name')}</dt><dd>${user.name}</dd><dt>${t('login.email')}</dt><dd>${user.email}</dd>
${user.role === 'admin' ? html`<dt>${t('profile.access')}</dt><dd>${t('profile.administrator')}</dd>` : ''}</dl>
<h3 id="roles-title">${t('profile.projects')}</h3>
${
  m.projectRoles.length
    ? html`<ul aria-labelledby="roles-title" data-testid="project-roles">${m.projectRoles.map(
        (r) =>
          html`<li data-testid="project-role"><a href="/projects/${r.projectId}">${r.name}</a>${r.archived ? html` <span class="muted">(${t('badge.archived')})</span>` : ''} — ${roleLabel(t, r.role)}${
            r.limited ? html` <span class="muted">(${t('profile.limited')})</span>` : ''
          }</li>`,
      )}</ul>`
    : html`<p class="muted">${user.role === 'admin' ? t('profile.noProjectsAdmin') : t('profile.noProjects')}</p>`
}
</section>`;
}

/** The time zone every time is shown in; while none is chosen the script preselects the browser's. */
export function timeZoneBlock(m: AccountModel) {
  const { t } = languageOf(m.session);
  const state = new FormState('time-zone', m.failure, t);
  const current = state.value('time_zone', m.session.timeZone ?? '');
  const zones = timeZoneChoices();
  const extra = current && !zones.includes(current) ? [current] : [];
  return html`<section class="card" aria-labelledby="time-zone-title">
<h2 id="time-zone-title">${t('profile.timeZone')}</h2>
<p class="muted" id="time-zone-help">${t('profile.timeZone.help')}${
    m.session.timeZone
      ? html`: ${t('profile.timeZone.now')} <span data-testid="time-zone-now">${zonedTime(m.now.toISOString(), m.session.timeZone)}</span>`
      : ` ${t('profile.timeZone.none')}`
  }.</p>
<form method="post" action="/profile/time-zone">${csrfField(m.session)}${writeKeyField()}
${state.summary({ time_zone: ['time-zone', t('profile.timeZone')] })}
<label for="time-zone">${t('profile.timeZone')}</label>
<select id="time-zone" name="time_zone" data-browser-time-zone aria-describedby="time-zone-help${state.errorOf('time_zone') ? ' time-zone-error' : ''}"${
    state.errorOf('time_zone') ? html` aria-invalid="true"` : ''
  }>
<option value="" ${selected(current === '')}>${t('profile.timeZone.notChosen')}</option>
${[...extra, ...zones].map((z) => html`<option value="${z}" ${selected(current === z)}>${z.replace(/_/g, ' ')}</option>`)}
</select>${state.message('time_zone', 'time-zone')}
<div class="actions"><button type="submit">${t('profile.timeZone.save')}</button></div>
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
  const { t } = languageOf(m.session);
  const state = new FormState('password', m.failure, t);
  const field = (name: string, id: string, label: string, autocomplete: string, help = '') =>
    html`<label for="${id}">${label}</label>
<input id="${id}" type="password" name="${name}" autocomplete="${autocomplete}" required ${name === 'current_password' ? '' : html`minlength="8"`}
  ${state.errorOf(name) ? html`aria-invalid="true" aria-describedby="${id}-error${help ? ` ${id}-help` : ''}"` : help ? html`aria-describedby="${id}-help"` : ''}>
${help ? html`<p class="muted" id="${id}-help">${help}</p>` : ''}${state.message(name, id)}`;
  return html`<section class="card" aria-labelledby="password-title">
<h2 id="password-title">${t('login.password')}</h2>
<form method="post" action="/profile/password">${csrfField(m.session)}${writeKeyField()}
${state.summary({
  current_password: ['current-password', t('profile.password.current')],
  new_password: ['new-password', t('profile.password.new')],
  confirm_password: ['confirm-password', t('profile.password.again')],
})}
${field('current_password', 'current-password', t('profile.password.current'), 'current-password')}
${field('new_password', 'new-password', t('profile.password.new'), 'new-password', t('profile.password.length'))}
${field('confirm_password', 'confirm-password', t('profile.password.again'), 'new-password')}
<p class="muted">${t('profile.password.others')}</p>
<div class="actions"><button type="submit">${t('profile.password.change')}</button></div>
</form>
</section>`;
}
