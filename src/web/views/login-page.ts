import { html } from '../html.js';
import { page } from '../layout.js';
import { errorSummary } from './forms.js';

/** The sign-in form (the landmarks of docs/design.md §8: "Email", "Password", "Sign in"). */
export function loginPageView(options: { csrf: string; next: string; error: string | null; email: string }): string {
  const { csrf, next } = options;
  return page({
    title: 'Sign in',
    session: null,
    body: html`<section class="card login" aria-labelledby="login-title">
<h1 id="login-title">Sign in to Punchlist</h1>
<form method="post" action="/login">
${options.error ? errorSummary('login', [{ text: options.error, href: '#login-email' }]) : ''}
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="time_zone" value="" data-browser-time-zone>
<input type="hidden" name="next" value="${next}">
<label for="login-email">Email</label>
<input id="login-email" type="email" name="email" autocomplete="username" required autofocus value="${options.email}">
<label for="login-password">Password</label>
<input id="login-password" type="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
</section>`,
  }).value;
}
