import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import type { Actor } from '../../../domain/policy.js';
import type { Direction } from '../../../features/admin/structure.service.js';
import { formOf, idParam, idsOf, parseId } from '../../form.js';
import { sessionOf } from '../../session.js';
import { adminHomeView, adminItemView, adminProjectsView, projectEditorView } from '../../views/admin.js';

const admin = { config: { web: 'admin' as const } };

type AdminProjectDeps = Pick<AppContext, 'structure' | 'members' | 'usersAdmin'>;

/** After a structural edit, back to the project's editor (only admin pages: the field is user input). */
function backTo(form: URLSearchParams): string {
  const back = form.get('back') ?? '';
  return /^\/admin\/projects\/[1-9][0-9]*(#[a-z0-9-]+)?$/.test(back) ? back : '/admin/projects';
}

async function projectEditor(deps: AdminProjectDeps, request: FastifyRequest, reply: FastifyReply, projectId: number) {
  const session = sessionOf(request);
  const { structure, members, usersAdmin } = deps;
  const [tree, memberList, users] = await Promise.all([
    structure.getStructure(session.user, projectId),
    members.listMembers(session.user, projectId),
    usersAdmin.listUsers(session.user),
  ]);
  const saved = Boolean((request.query as Record<string, string | undefined>).saved);
  return reply.type('text/html; charset=utf-8').send(projectEditorView({ session, tree, members: memberList, users, saved }));
}

export async function adminProjectPages(app: FastifyInstance, deps: AdminProjectDeps) {
  const { structure, members } = deps;

  app.get('/admin', admin, async (request, reply) => {
    const session = sessionOf(request);
    return reply.type('text/html; charset=utf-8').send(adminHomeView(session));
  });

  app.get('/admin/projects', admin, async (request, reply) => {
    const session = sessionOf(request);
    const list = await structure.listProjects(session.user);
    return reply.type('text/html; charset=utf-8').send(adminProjectsView(session, list));
  });

  app.post('/admin/projects', admin, async (request, reply) => {
    const form = formOf(request);
    const id = await structure.createProject(sessionOf(request).user, {
      name: form.get('name') ?? '',
      description: form.get('description') ?? '',
      deadline: form.get('deadline') ?? '',
    });
    return reply.redirect(`/admin/projects/${id}`, 303);
  });

  app.get('/admin/projects/:id', admin, async (request, reply) => projectEditor(deps, request, reply, idParam(request)));

  app.post('/admin/projects/:id', admin, async (request, reply) => {
    const id = idParam(request);
    const form = formOf(request);
    await structure.updateProject(sessionOf(request).user, id, {
      name: form.get('name') ?? '',
      description: form.get('description') ?? '',
      deadline: form.get('deadline') ?? '',
      archived: form.get('archived') === '1',
    });
    return reply.redirect(`/admin/projects/${id}?saved=1`, 303);
  });

  /** A structural edit from the project editor, then back to where its form was. */
  const edit =
    (change: (actor: Actor, id: number, form: URLSearchParams) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const form = formOf(request);
      await change(sessionOf(request).user, idParam(request), form);
      return reply.redirect(backTo(form), 303);
    };
  const named = (change: (actor: Actor, id: number, name: string) => Promise<unknown>) =>
    edit((actor, id, form) => change(actor, id, form.get('name') ?? ''));
  const moved = (move: (actor: Actor, id: number, direction: Direction) => Promise<void>) =>
    edit((actor, id, form) => move(actor, id, form.get('direction') as Direction));

  app.post('/admin/projects/:id/sections', admin, named(structure.createSection));
  app.post('/admin/sections/:id/checklists', admin, named(structure.createChecklist));
  app.post(
    '/admin/checklists/:id/items',
    admin,
    edit((actor, id, form) =>
      structure.createItem(actor, id, { text: form.get('text') ?? '', description: form.get('description') ?? '' }),
    ),
  );
  app.post('/admin/sections/:id/rename', admin, named(structure.renameSection));
  app.post('/admin/checklists/:id/rename', admin, named(structure.renameChecklist));
  app.post('/admin/sections/:id/move', admin, moved(structure.moveSection));
  app.post('/admin/checklists/:id/move', admin, moved(structure.moveChecklist));
  app.post('/admin/items/:id/move', admin, moved(structure.moveItem));

  app.get('/admin/items/:id', admin, async (request, reply) => {
    const session = sessionOf(request);
    const { item, participantIds, members: projectMembers } = await structure.getItem(session.user, idParam(request));
    return reply.type('text/html; charset=utf-8').send(
      adminItemView({
        session,
        item,
        participantIds,
        members: projectMembers,
        saved: Boolean((request.query as Record<string, string | undefined>).saved),
      }),
    );
  });

  app.post('/admin/items/:id', admin, async (request, reply) => {
    const id = idParam(request);
    const form = formOf(request);
    await structure.updateItem(sessionOf(request).user, id, {
      text: form.get('text') ?? '',
      description: form.get('description') ?? '',
      participantIds: idsOf(form, 'participants'),
    });
    return reply.redirect(`/admin/items/${id}?saved=1`, 303);
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
    return reply.redirect(`/admin/projects/${id}?saved=1#members`, 303);
  });

  app.post('/admin/projects/:id/members/:userId/remove', admin, async (request, reply) => {
    const id = idParam(request);
    await members.removeMember(sessionOf(request).user, id, idParam(request, 'userId'));
    return reply.redirect(`/admin/projects/${id}?saved=1#members`, 303);
  });
}
