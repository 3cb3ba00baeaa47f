import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../composition/context.js';
import { formOf, idParam, idsIn, parseFields, parseId, textField } from '../../form.js';
import { sessionOf } from '../../session.js';
import { adminHomeView, adminProjectsView, projectEditorView } from '../../views/admin.js';
import { formPage } from '../../form-page.js';
import type { FormFailure, WebWrite, WebWriter } from '../../web-write.js';
import { Type } from 'typebox';
import { Text } from '../../../http/write-inputs.js';

const admin = { config: { web: 'admin' as const } };

type AdminProjectDeps = Pick<AppContext, 'structure' | 'members' | 'usersAdmin' | 'templates'> & { webWrite: WebWriter };

/**
 * The admin's project forms, each with its own schema (no v1 twin): their shapes; the structure, templates and
 * members services check the rest (names, dates, roles, the project's sections and checklists).
 */
const ProjectForm = Type.Object({ name: Text, description: Text, deadline: Text });
const NewProjectForm = Type.Object({ ...ProjectForm.properties, template: Text });
const ProjectEditForm = Type.Object({ ...ProjectForm.properties, archived: Type.Boolean() });
const MemberForm = Type.Object({
  user: Text,
  role: Text,
  access: Text,
  sections: Type.Array(Text),
  checklists: Type.Array(Text),
  company_items_only: Type.Boolean(),
});

const projectFieldsOf = (form: URLSearchParams) => ({
  name: textField(form, 'name'),
  description: textField(form, 'description'),
  deadline: textField(form, 'deadline'),
});

/** "New project", from nothing or (docs/design.md §21) from a template: the template's id, null for none. */
function newProjectOf(form: URLSearchParams) {
  const { template, ...project } = parseFields(NewProjectForm, { ...projectFieldsOf(form), template: textField(form, 'template') });
  return { project, templateId: template === '' ? null : (parseId(template) ?? 0) };
}

const projectEditOf = (form: URLSearchParams) =>
  parseFields(ProjectEditForm, { ...projectFieldsOf(form), archived: form.get('archived') === '1' });

/** A member's role and access; a user or a section that is no id is 0, which the service refuses. */
function memberOf(form: URLSearchParams) {
  const fields = parseFields(MemberForm, {
    user: textField(form, 'user'),
    role: textField(form, 'role'),
    access: textField(form, 'access'),
    sections: form.getAll('sections'),
    checklists: form.getAll('checklists'),
    company_items_only: form.get('company_items_only') === '1',
  });
  return {
    userId: parseId(fields.user) ?? 0,
    role: fields.role,
    limited: fields.access === 'limited',
    sectionIds: idsIn(fields.sections),
    checklistIds: idsIn(fields.checklists),
    companyItemsOnly: fields.company_items_only,
  };
}

type Editor = ReturnType<typeof formPage>;

async function editorView(deps: AdminProjectDeps, request: FastifyRequest, projectId: number, failure: FormFailure | null) {
  const session = sessionOf(request);
  const [tree, memberList, users] = await Promise.all([
    deps.structure.getStructure(session.user, projectId),
    deps.members.listMembers(session.user, projectId),
    deps.usersAdmin.listUsers(session.user),
  ]);
  const saved = (request.query as Record<string, string | undefined>).saved ?? null;
  return projectEditorView({ session, tree, members: memberList, users, saved: failure ? null : saved, failure });
}

async function adminHome({ templates }: AdminProjectDeps, request: FastifyRequest, reply: FastifyReply) {
  return reply.type('text/html; charset=utf-8').send(adminHomeView(sessionOf(request), await templates.list()));
}

async function projectList({ structure, templates }: AdminProjectDeps, request: FastifyRequest, reply: FastifyReply) {
  const session = sessionOf(request);
  const [list, templateList] = await Promise.all([structure.listProjects(session.user), templates.list()]);
  return reply.type('text/html; charset=utf-8').send(adminProjectsView(session, list, null, templateList));
}

async function createProject({ structure, templates, webWrite }: AdminProjectDeps, request: FastifyRequest, reply: FastifyReply) {
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
      const { project, templateId } = newProjectOf(form);
      if (templateId === null) return structure.createProject(session.user, project, audit);
      return templates.createProject(session.user, project, templateId, audit);
    },
  });
}

async function updateProject({ structure }: AdminProjectDeps, editor: Editor, request: FastifyRequest, reply: FastifyReply) {
  const id = idParam(request);
  const form = formOf(request);
  return editor.write(request, reply, id, {
    form: 'project',
    redirect: () => `/admin/projects/${id}?saved=1`,
    write: (audit) => structure.updateProject(sessionOf(request).user, id, projectEditOf(form), audit),
  });
}

/** A post of the Members block: back to it, or the editor again with the message. */
function memberWrite(
  editor: Editor,
  request: FastifyRequest,
  reply: FastifyReply,
  form: string,
  saved: string,
  write: WebWrite<void>['write'],
) {
  const id = idParam(request);
  return editor.write(request, reply, id, { form, redirect: () => `/admin/projects/${id}?saved=${saved}#members`, write });
}

async function setMember({ members }: AdminProjectDeps, editor: Editor, request: FastifyRequest, reply: FastifyReply) {
  const form = formOf(request);
  return memberWrite(editor, request, reply, 'member', 'member', (_, recordAudit) =>
    members.setMember(sessionOf(request).user, idParam(request), memberOf(form), recordAudit),
  );
}

async function removeMember({ members }: AdminProjectDeps, editor: Editor, request: FastifyRequest, reply: FastifyReply) {
  return memberWrite(editor, request, reply, 'remove-member', 'removed', (_, recordAudit) =>
    members.removeMember(sessionOf(request).user, idParam(request), idParam(request, 'userId'), recordAudit),
  );
}

/** The admin's home, projects and a project's editor (members included): one small handler per route (above). */
export async function adminProjectPages(app: FastifyInstance, deps: AdminProjectDeps) {
  const editor = formPage(deps.webWrite, { entity: 'project', view: (request, id, failure) => editorView(deps, request, id, failure) });
  app.get('/admin', admin, (request, reply) => adminHome(deps, request, reply));
  app.get('/admin/projects', admin, (request, reply) => projectList(deps, request, reply));
  app.post('/admin/projects', admin, (request, reply) => createProject(deps, request, reply));
  app.get('/admin/projects/:id', admin, async (request, reply) => editor.show(request, reply, idParam(request)));
  app.post('/admin/projects/:id', admin, (request, reply) => updateProject(deps, editor, request, reply));
  app.post('/admin/projects/:id/members', admin, (request, reply) => setMember(deps, editor, request, reply));
  app.post('/admin/projects/:id/members/:userId/remove', admin, (request, reply) => removeMember(deps, editor, request, reply));
}
