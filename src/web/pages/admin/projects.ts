import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import type { Actor } from '../../../domain/policy.js';
import type { Direction } from '../../../features/admin/structure.service.js';
import { formOf, idParam, idsOf, parseId } from '../../form.js';
import { sessionOf } from '../../session.js';
import { adminHomeView, adminItemView, adminProjectsView, projectEditorView } from '../../views/admin.js';

const admin = { config: { web: 'admin' as const } };

type AdminProjectDeps = Pick<AppContext, 'structure' | 'members' | 'usersAdmin'>;

/** After a structural edit, back to the project's editor (only admin pages: the field is user input), saying what was done. */
function backTo(form: URLSearchParams, saved?: keyof typeof SAVED_NOTICES): string {
  const back = form.get('back') ?? '';
  const match = /^(\/admin\/projects\/[1-9][0-9]*)(#[a-z0-9-]+)?$/.exec(back);
  if (!match) return '/admin/projects';
  return saved ? `${match[1]}?saved=${saved}${match[2] ?? ''}` : back;
}

/** What the project editor says after a change, by the redirect's `saved`. */
const SAVED_NOTICES = {
  '1': 'Saved.',
  created: 'The project was created.',
  section: 'The section was added.',
  checklist: 'The checklist was added.',
  item: 'The item was added.',
  renamed: 'The new name was saved.',
  moved: 'The new order was saved.',
  member: 'The member was saved.',
  removed: 'The member was removed.',
};

const savedNotice = (request: FastifyRequest) =>
  SAVED_NOTICES[((request.query as Record<string, string | undefined>).saved ?? '') as keyof typeof SAVED_NOTICES] ?? null;

async function projectEditor(deps: AdminProjectDeps, request: FastifyRequest, reply: FastifyReply, projectId: number) {
  const session = sessionOf(request);
  const { structure, members, usersAdmin } = deps;
  const [tree, memberList, users] = await Promise.all([
    structure.getStructure(session.user, projectId),
    members.listMembers(session.user, projectId),
    usersAdmin.listUsers(session.user),
  ]);
  const notice = savedNotice(request);
  return reply
    .type('text/html; charset=utf-8')
    .send(projectEditorView({ session, tree, members: memberList, users, saved: false, notice }));
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
    return reply.redirect(`/admin/projects/${id}?saved=created`, 303);
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
    (saved: keyof typeof SAVED_NOTICES, change: (actor: Actor, id: number, form: URLSearchParams) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const form = formOf(request);
      await change(sessionOf(request).user, idParam(request), form);
      return reply.redirect(backTo(form, saved), 303);
    };
  const named = (saved: keyof typeof SAVED_NOTICES, change: (actor: Actor, id: number, name: string) => Promise<unknown>) =>
    edit(saved, (actor, id, form) => change(actor, id, form.get('name') ?? ''));
  const moved = (move: (actor: Actor, id: number, direction: Direction) => Promise<void>) =>
    edit('moved', (actor, id, form) => move(actor, id, form.get('direction') as Direction));

  app.post('/admin/projects/:id/sections', admin, named('section', structure.createSection));
  app.post('/admin/sections/:id/checklists', admin, named('checklist', structure.createChecklist));
  app.post(
    '/admin/checklists/:id/items',
    admin,
    edit('item', (actor, id, form) =>
      structure.createItem(actor, id, { text: form.get('text') ?? '', description: form.get('description') ?? '' }),
    ),
  );
  app.post('/admin/sections/:id/rename', admin, named('renamed', structure.renameSection));
  app.post('/admin/checklists/:id/rename', admin, named('renamed', structure.renameChecklist));
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
    return reply.redirect(`/admin/projects/${id}?saved=member#members`, 303);
  });

  app.post('/admin/projects/:id/members/:userId/remove', admin, async (request, reply) => {
    const id = idParam(request);
    await members.removeMember(sessionOf(request).user, id, idParam(request, 'userId'));
    return reply.redirect(`/admin/projects/${id}?saved=removed#members`, 303);
  });
}
