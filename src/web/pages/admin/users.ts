import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UsersAdminService } from '../../../features/admin/users-admin.service.js';
import { Type } from 'typebox';
import { Text } from '../../../http/write-inputs.js';
import { formOf, idParam, parseFields, textField } from '../../form.js';
import { sessionOf } from '../../session.js';
import { languageOf } from '../../layout.js';
import { type NewUserForm, usersPageView } from '../../views/admin-users.js';
import type { FormFailure, WebWriter } from '../../web-write.js';

/**
 * The users page's forms, each with its own schema (no v1 twin): their shapes; the users service checks the rest
 * (the address, the role, the password's rules). Nothing here refuses (text, a box), so a new user's fields are
 * read before the write, to be shown again if it refuses them.
 */
const NewUserForm = Type.Object({ email: Text, name: Text, role: Text, password: Text });
const ActiveForm = Type.Object({ active: Type.Boolean() });

const newUserOf = (form: URLSearchParams) =>
  parseFields(NewUserForm, {
    email: textField(form, 'email'),
    name: textField(form, 'name'),
    role: form.get('role') ?? 'member',
    password: textField(form, 'password'),
  });

const activeOf = (form: URLSearchParams) => parseFields(ActiveForm, { active: form.get('active') === '1' }).active;

async function usersPage(
  usersAdmin: UsersAdminService,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { status?: number; error?: string | null; notice?: string | null; form?: NewUserForm; failure?: FormFailure } = {},
) {
  const session = sessionOf(request);
  const users = await usersAdmin.listUsers(session.user);
  const view = usersPageView({ ...options, session, users, form: options.form ?? { email: '', name: '', role: 'member' } });
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(view);
}

export async function adminUserPages(app: FastifyInstance, deps: { usersAdmin: UsersAdminService; webWrite: WebWriter }) {
  const { usersAdmin, webWrite } = deps;
  const admin = { config: { web: 'admin' as const } };

  app.get('/admin/users', admin, async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    const { t } = languageOf(sessionOf(request));
    return usersPage(usersAdmin, request, reply, {
      notice: q.created ? t('admin.notice.userCreated') : q.changed ? t('admin.notice.userUpdated') : null,
    });
  });

  app.post('/admin/users', admin, async (request, reply) => {
    const { user } = sessionOf(request);
    const { password, ...form } = newUserOf(formOf(request));
    return webWrite(request, reply, {
      form: 'new-user',
      entity: { type: 'user', id: 0 },
      redirect: () => '/admin/users?created=1',
      rerender: (failure, status) =>
        usersPage(usersAdmin, request, reply, {
          status,
          error: `${languageOf(sessionOf(request)).t('admin.userNotCreated')} ${failure.message}`,
          form,
          failure,
        }),
      write: (_, recordAudit) => usersAdmin.createUser(user, { ...form, password }, recordAudit),
    });
  });

  app.post('/admin/users/:id/active', admin, async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return webWrite(request, reply, {
      form: 'user-active',
      entity: { type: 'user', id },
      redirect: () => '/admin/users?changed=1',
      rerender: (failure, status) =>
        usersPage(usersAdmin, request, reply, {
          status,
          error: `${languageOf(sessionOf(request)).t('admin.nothingChanged')} ${failure.message}`,
        }),
      write: (_, recordAudit) => usersAdmin.setUserActive(user, id, activeOf(form), recordAudit),
    });
  });
}
