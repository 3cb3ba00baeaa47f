import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../errors.js';
import type { UsersAdminService } from '../../../features/admin/users-admin.service.js';
import { formOf, idParam } from '../../form.js';
import { sessionOf } from '../../session.js';
import { type NewUserForm, usersPageView } from '../../views/admin-users.js';

async function usersPage(
  usersAdmin: UsersAdminService,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { status?: number; error?: string | null; notice?: string | null; form?: NewUserForm } = {},
) {
  const session = sessionOf(request);
  const users = await usersAdmin.listUsers(session.user);
  const view = usersPageView({ ...options, session, users, form: options.form ?? { email: '', name: '', role: 'member' } });
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(view);
}

export async function adminUserPages(app: FastifyInstance, deps: { usersAdmin: UsersAdminService }) {
  const { usersAdmin } = deps;
  const admin = { config: { web: 'admin' as const } };

  app.get('/admin/users', admin, async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    return usersPage(usersAdmin, request, reply, {
      notice: q.created ? 'The user was created.' : q.changed ? 'The user was updated.' : null,
    });
  });

  app.post('/admin/users', admin, async (request, reply) => {
    const session = sessionOf(request);
    const body = formOf(request);
    const form = { email: body.get('email') ?? '', name: body.get('name') ?? '', role: body.get('role') ?? 'member' };
    try {
      await usersAdmin.createUser(session.user, { ...form, password: body.get('password') ?? '' });
    } catch (err) {
      if (err instanceof ApiError && (err.status === 422 || err.status === 409)) {
        return usersPage(usersAdmin, request, reply, { status: err.status, error: `The user was not created: ${err.message}`, form });
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
