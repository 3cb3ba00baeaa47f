import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { USER_ROLES } from '../../../domain/values.js';
import { ApiError } from '../../../errors.js';
import { formOf, idParam } from '../../form.js';
import { html } from '../../html.js';
import { badge, csrfField, page, time } from '../../layout.js';
import { sessionOf } from '../../session.js';

interface NewUserForm {
  email: string;
  name: string;
  role: string;
}

async function usersPage(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { status?: number; error?: string | null; notice?: string | null; form?: NewUserForm } = {},
) {
  const session = sessionOf(request);
  const users = await request.server.ctx.usersAdmin.listUsers(session.user);
  const form = options.form ?? { email: '', name: '', role: 'member' };
  const csrf = csrfField(session);
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(
      page({
        title: 'Users',
        session,
        path: '/admin',
        notice: options.notice,
        error: options.error,
        body: html`<p class="muted"><a href="/admin">Administration</a> ›</p>
<h1>Users</h1>
<table>
<thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Created</th><th scope="col">State</th><th scope="col"><span class="sr-only">Action</span></th></tr></thead>
<tbody>${users.map(
          (u) => html`<tr data-testid="user-row">
<td>${u.name}</td><td>${u.email}</td><td>${u.role}</td><td>${time(u.created_at)}</td>
<td>${badge(u.active ? 'active' : 'deactivated')}</td>
<td>${
            u.id === session.user.id
              ? html`<span class="muted">you</span>`
              : html`<form method="post" action="/admin/users/${u.id}/active" class="inline"
  ${u.active ? html`data-confirm="${`Deactivate ${u.name}? Their sessions end and their API tokens stop working at once.`}"` : ''}>
${csrf}<input type="hidden" name="active" value="${u.active ? '0' : '1'}">
<button type="submit" class="small ${u.active ? 'danger' : 'secondary'}">${u.active ? 'Deactivate' : 'Reactivate'}</button></form>`
          }</td></tr>`,
        )}</tbody></table>
<section class="card" aria-labelledby="new-user-title">
<h2 id="new-user-title">New user</h2>
<form method="post" action="/admin/users">
${csrf}
<label for="user-email">Email address</label><input id="user-email" type="email" name="email" required value="${form.email}">
<label for="user-name">Full name</label><input id="user-name" type="text" name="name" required maxlength="200" value="${form.name}">
<label for="user-role">Global role</label>
<select id="user-role" name="role">${USER_ROLES.map((r) => html`<option value="${r}" ${form.role === r ? html`selected` : ''}>${r}</option>`)}</select>
<label for="user-password">Initial password</label>
<input id="user-password" type="password" name="password" autocomplete="new-password" minlength="8" aria-describedby="user-password-help">
<p class="muted" id="user-password-help">At least 8 characters. Leave empty for an account that cannot sign in to the web interface.</p>
<div class="actions"><button type="submit">Create user</button></div>
</form>
</section>`,
      }).value,
    );
}

export async function adminUserPages(app: FastifyInstance) {
  const { usersAdmin } = app.ctx;
  const admin = { config: { web: 'admin' as const } };

  app.get('/admin/users', admin, async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    return usersPage(request, reply, { notice: q.created ? 'The user was created.' : q.changed ? 'The user was updated.' : null });
  });

  app.post('/admin/users', admin, async (request, reply) => {
    const session = sessionOf(request);
    const body = formOf(request);
    const form = { email: body.get('email') ?? '', name: body.get('name') ?? '', role: body.get('role') ?? 'member' };
    try {
      await usersAdmin.createUser(session.user, { ...form, password: body.get('password') ?? '' });
    } catch (err) {
      if (err instanceof ApiError && (err.status === 422 || err.status === 409)) {
        return usersPage(request, reply, { status: err.status, error: `The user was not created: ${err.message}`, form });
      }
      throw err;
    }
    return reply.redirect('/admin/users?created=1', 303);
  });

  app.post('/admin/users/:id/active', admin, async (request, reply) => {
    const session = sessionOf(request);
    await usersAdmin.setUserActive(session.user, idParam(request), formOf(request).get('active') === '1');
    return reply.redirect('/admin/users?changed=1', 303);
  });
}
