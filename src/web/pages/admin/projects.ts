import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { formOf, idParam, idsOf, parseId } from '../../form.js';
import { sessionOf } from '../../session.js';
import { adminHomeView, adminProjectsView, projectEditorView } from '../../views/admin.js';
import type { FormFailure, WebWrite, WebWriter } from '../../web-write.js';

const admin = { config: { web: 'admin' as const } };

type AdminProjectDeps = Pick<AppContext, 'structure' | 'members' | 'usersAdmin'> & { webWrite: WebWriter };

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
  const { structure, members, webWrite } = deps;

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
    return webWrite(request, reply, {
      form: 'new-project',
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
    return webWrite(request, reply, {
      form: 'project',
      entity: { type: 'project', id },
      redirect: () => `/admin/projects/${id}?saved=1`,
      rerender: (failure, status) => projectEditor(deps, request, reply, id, failure, status),
      write: (audit) =>
        structure.updateProject(sessionOf(request).user, id, { ...projectFields(form), archived: form.get('archived') === '1' }, audit),
    });
  });

  /** A post of the Members block: back to it, or the editor again with the message. */
  function memberWrite(request: FastifyRequest, reply: FastifyReply, form: string, saved: string, write: WebWrite<void>['write']) {
    const id = idParam(request);
    return webWrite(request, reply, {
      form,
      entity: { type: 'project', id },
      redirect: () => `/admin/projects/${id}?saved=${saved}#members`,
      rerender: (failure, status) => projectEditor(deps, request, reply, id, failure, status),
      write,
    });
  }

  app.post('/admin/projects/:id/members', admin, async (request, reply) => {
    const form = formOf(request);
    const member = {
      userId: parseId(form.get('user')) ?? 0,
      role: form.get('role') ?? '',
      limited: form.get('access') === 'limited',
      sectionIds: idsOf(form, 'sections'),
      checklistIds: idsOf(form, 'checklists'),
    };
    return memberWrite(request, reply, 'member', 'member', (_, recordAudit) =>
      members.setMember(sessionOf(request).user, idParam(request), member, recordAudit),
    );
  });

  app.post('/admin/projects/:id/members/:userId/remove', admin, async (request, reply) =>
    memberWrite(request, reply, 'remove-member', 'removed', (_, recordAudit) =>
      members.removeMember(sessionOf(request).user, idParam(request), idParam(request, 'userId'), recordAudit),
    ),
  );
}
