import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../composition/context.js';
import { formOf, idParam, idsOf, parseId } from '../../form.js';
import { sessionOf } from '../../session.js';
import { adminHomeView, adminProjectsView, projectEditorView } from '../../views/admin.js';
import { formPage } from '../../form-page.js';
import type { WebWrite, WebWriter } from '../../web-write.js';

const admin = { config: { web: 'admin' as const } };

type AdminProjectDeps = Pick<AppContext, 'structure' | 'members' | 'usersAdmin' | 'templates'> & { webWrite: WebWriter };

const projectFields = (form: URLSearchParams) => ({
  name: form.get('name') ?? '',
  description: form.get('description') ?? '',
  deadline: form.get('deadline') ?? '',
});

export async function adminProjectPages(app: FastifyInstance, deps: AdminProjectDeps) {
  const { structure, members, usersAdmin, templates, webWrite } = deps;

  const projectEditor = formPage(webWrite, {
    entity: 'project',
    async view(request, projectId, failure) {
      const session = sessionOf(request);
      const [tree, memberList, users] = await Promise.all([
        structure.getStructure(session.user, projectId),
        members.listMembers(session.user, projectId),
        usersAdmin.listUsers(session.user),
      ]);
      const saved = (request.query as Record<string, string | undefined>).saved ?? null;
      return projectEditorView({ session, tree, members: memberList, users, saved: failure ? null : saved, failure });
    },
  });

  app.get('/admin', admin, async (request, reply) => {
    const session = sessionOf(request);
    return reply.type('text/html; charset=utf-8').send(adminHomeView(session, await templates.list()));
  });

  app.get('/admin/projects', admin, async (request, reply) => {
    const session = sessionOf(request);
    const [list, templateList] = await Promise.all([structure.listProjects(session.user), templates.list()]);
    return reply.type('text/html; charset=utf-8').send(adminProjectsView(session, list, null, templateList));
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
          .send(adminProjectsView(session, await structure.listProjects(session.user), failure, await templates.list())),
      write: (audit) => {
        // docs/design.md §21: "New project" may start from a template (its whole shape).
        const template = form.get('template') ?? '';
        if (template === '') return structure.createProject(session.user, projectFields(form), audit);
        return templates.createProject(session.user, projectFields(form), parseId(template) ?? 0, audit);
      },
    });
  });

  app.get('/admin/projects/:id', admin, async (request, reply) => projectEditor.show(request, reply, idParam(request)));

  app.post('/admin/projects/:id', admin, async (request, reply) => {
    const id = idParam(request);
    const form = formOf(request);
    return projectEditor.write(request, reply, id, {
      form: 'project',
      redirect: () => `/admin/projects/${id}?saved=1`,
      write: (audit) =>
        structure.updateProject(sessionOf(request).user, id, { ...projectFields(form), archived: form.get('archived') === '1' }, audit),
    });
  });

  /** A post of the Members block: back to it, or the editor again with the message. */
  function memberWrite(request: FastifyRequest, reply: FastifyReply, form: string, saved: string, write: WebWrite<void>['write']) {
    const id = idParam(request);
    return projectEditor.write(request, reply, id, { form, redirect: () => `/admin/projects/${id}?saved=${saved}#members`, write });
  }

  app.post('/admin/projects/:id/members', admin, async (request, reply) => {
    const form = formOf(request);
    const member = {
      userId: parseId(form.get('user')) ?? 0,
      role: form.get('role') ?? '',
      limited: form.get('access') === 'limited',
      sectionIds: idsOf(form, 'sections'),
      checklistIds: idsOf(form, 'checklists'),
      companyItemsOnly: form.get('company_items_only') === '1',
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
