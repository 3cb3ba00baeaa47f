import { html } from '../html.js';
import type { Language } from '../../i18n/i18n.js';
import { languageOf, page } from '../layout.js';
import { errorSummary } from './forms.js';

/** The sign-in form (the landmarks of docs/design.md §8: "Email", "Password", "Sign in"). */
export function loginPageView(options: { csrf: string; next: string; error: string | null; email: string; language: Language }): string {
  const { csrf, next, language } = options;
  const { t } = languageOf(null, language);
  return page({
    title: t('login.title'),
    session: null,
    language,
    body: html`<section class="card login" aria-labelledby="login-title">
<h1 id="login-title">${t('login.heading')}</h1>
<form method="post" action="/login">
${options.error ? errorSummary('login', [{ text: options.error, href: '#login-email' }], t) : ''}
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="time_zone" value="" data-browser-time-zone>
<input type="hidden" name="next" value="${next}">
<label for="login-email">${t('login.email')}</label>
<input id="login-email" type="email" name="email" autocomplete="username" required autofocus value="${options.email}">
<label for="login-password">${t('login.password')}</label>
<input id="login-password" type="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">${t('login.submit')}</button></div>
</form>
</section>`,
  }).value;
}
