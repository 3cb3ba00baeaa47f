import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { formOf, idParam, idsOf, parseId } from '../../form.js';
import { sessionOf } from '../../session.js';
import { adminHomeView, adminProjectsView, projectEditorView } from '../../views/admin.js';
import { type FormFailure, webWrite } from '../../web-write.js';

const admin = { config: { web: 'admin' as const } };

type AdminProjectDeps = Pick<AppContext, 'structure' | 'members' | 'usersAdmin' | 'idempotency'>;

const projectFields = (form: URLSearchParams) => ({
  name: form.get('name') ?? '',
  description: form.get('description') ?? '',
  deadline: form.get('deadline') ?? '',
});

async function projectEditor(
  deps: AdminProjectDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  projectId: number,
  failure: FormFailure | null = null,
  status = 200,
) {
  const session = sessionOf(request);
  const { structure, members, usersAdmin } = deps;
  const [tree, memberList, users] = await Promise.all([
    structure.getStructure(session.user, projectId),
    members.listMembers(session.user, projectId),
    usersAdmin.listUsers(session.user),
  ]);
  const saved = (request.query as Record<string, string | undefined>).saved ?? null;
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(projectEditorView({ session, tree, members: memberList, users, saved: failure ? null : saved, failure }));
}

export async function adminProjectPages(app: FastifyInstance, deps: AdminProjectDeps) {
  const { structure, members, idempotency } = deps;

  app.get('/admin', admin, async (request, reply) => {
    const session = sessionOf(request);
    return reply.type('text/html; charset=utf-8').send(adminHomeView(session));
  });

  app.get('/admin/projects', admin, async (request, reply) => {
    const session = sessionOf(request);
    const list = await structure.listProjects(session.user);
    return reply.type('text/html; charset=utf-8').send(adminProjectsView(session, list, null));
  });

  app.post('/admin/projects', admin, async (request, reply) => {
    const session = sessionOf(request);
    const form = formOf(request);
    return webWrite(idempotency, request, reply, {
      user: session.user,
      form: 'new-project',
      fields: form,
      entity: { type: 'project', id: 0 },
      redirect: (id) => `/admin/projects/${id}?saved=created`,
      rerender: async (failure, status) =>
        reply
          .code(status)
          .type('text/html; charset=utf-8')
          .send(adminProjectsView(session, await structure.listProjects(session.user), failure)),
      write: (audit) => structure.createProject(session.user, projectFields(form), audit),
    });
  });

  app.get('/admin/projects/:id', admin, async (request, reply) => projectEditor(deps, request, reply, idParam(request)));

  app.post('/admin/projects/:id', admin, async (request, reply) => {
    const id = idParam(request);
    const form = formOf(request);
    return webWrite(idempotency, request, reply, {
      user: sessionOf(request).user,
      form: 'project',
      fields: form,
      entity: { type: 'project', id },
      redirect: () => `/admin/projects/${id}?saved=1`,
      rerender: (failure, status) => projectEditor(deps, request, reply, id, failure, status),
      write: (audit) =>
        structure.updateProject(sessionOf(request).user, id, { ...projectFields(form), archived: form.get('archived') === '1' }, audit),
    });
  });

  app.post('/admin/projects/:id/members', admin, async (request, reply) => {
    const id = idParam(request);
    const form = formOf(request);
    await members.setMember(sessionOf(request).user, id, {
      userId: parseId(form.get('user')) ?? 0,
      role: form.get('role') ?? '',
      limited: form.get('access') === 'limited',
      sectionIds: idsOf(form, 'sections'),
      checklistIds: idsOf(form, 'checklists'),
    });
    return reply.redirect(`/admin/projects/${id}?saved=member#members`, 303);
  });

  app.post('/admin/projects/:id/members/:userId/remove', admin, async (request, reply) => {
    const id = idParam(request);
    await members.removeMember(sessionOf(request).user, id, idParam(request, 'userId'));
    return reply.redirect(`/admin/projects/${id}?saved=removed#members`, 303);
  });
}
