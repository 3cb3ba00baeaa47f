import { photoDetailsOf } from '../../features/attachments/attachments.service.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Actor } from '../../domain/policy.js';
import { validationError } from '../../errors.js';
import type { ProjectTree } from '../../features/projects/projects.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { formOf, fractionOf, idParam, idsOf, parseId } from '../form.js';
import { type SafeHtml, html } from '../html.js';
import { csrfField, writeKeyField } from '../layout.js';
import { sessionOf } from '../session.js';
import { readPhotoForm, uploadRoutes } from '../uploads.js';
import { type ChecklistChoice, newItemView } from '../views/item-form.js';
import { STRUCTURE_NOTICES, structurePageView } from '../views/structure-page.js';
import { formPage } from '../form-page.js';
import type { WebWrite, WebWriter } from '../web-write.js';

type StructureDeps = Pick<AppContext, 'structure' | 'attachments' | 'planViews'> & { webWrite: WebWriter };

/** The checklists of the tree the actor sees, under their sections: where an item may be put. */
export function checklistChoices(tree: ProjectTree): ChecklistChoice[] {
  return tree.sections
    .filter((s) => s.checklists.length > 0)
    .map((s) => ({ section: { id: s.id, name: s.name }, checklists: s.checklists.map((c) => ({ id: c.id, name: c.name })) }));
}

/** A write form's wrapper: CSRF token and a fresh idempotency key. */
function formWrapper(session: WebSession) {
  return (action: string, body: SafeHtml, options: { id?: string; className?: string } = {}) =>
    html`<form method="post" action="${action}" ${options.id ? html`id="${options.id}"` : ''} ${options.className ? html`class="${options.className}"` : ''}>
${csrfField(session)}${writeKeyField()}
${body}
</form>`;
}

/**
 * Structure from the project side (docs/design.md §14), for the project's managers and admins: sections and
 * checklists on /projects/<id>/structure, "Add item" on /projects/<id>/items/new. Every post goes through
 * webWrite (idempotency key, audit record in the write's transaction, 422 shown again, 303).
 */
export async function structurePages(app: FastifyInstance, deps: StructureDeps) {
  const { structure, attachments, planViews, webWrite } = deps;

  const structurePage = formPage(webWrite, {
    entity: 'project',
    async view(request, projectId, failure) {
      const session = sessionOf(request);
      const tree = await structure.structureOf(session.user, projectId);
      const saved = (request.query as Record<string, string | undefined>).saved ?? '';
      return structurePageView({
        session,
        project: tree.project,
        sections: tree.sections,
        notice: failure ? null : (STRUCTURE_NOTICES[saved] ?? null),
        failure,
        writeForm: formWrapper(session),
      });
    },
  });

  /** A post of the structure page: back to it (at the section), or the page again with the refused form. */
  function structureWrite<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    projectId: number,
    form: string,
    saved: keyof typeof STRUCTURE_NOTICES,
    write: WebWrite<T>['write'],
  ) {
    return structurePage.write(request, reply, projectId, {
      form,
      fields: formOf(request),
      redirect: () => `/projects/${projectId}/structure?saved=${saved}`,
      write,
    });
  }

  app.get('/projects/:id/structure', async (request, reply) => structurePage.show(request, reply, idParam(request)));

  app.post('/projects/:id/sections', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return structureWrite(request, reply, id, 'new-section', 'section', (audit) =>
      structure.createSection(user, id, form.get('name') ?? '', audit),
    );
  });

  app.post('/projects/:id/checklists', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return structureWrite(request, reply, id, 'new-checklist', 'checklist', (audit) => {
      const section = parseId(form.get('section'));
      if (section === null) throw validationError('section', 'choose a section');
      return structure.createChecklist(user, section, form.get('name') ?? '', audit, id);
    });
  });

  /** Rename and move of a section or checklist: the project comes from the row, the form names the row. */
  const rowWrite =
    (
      kind: 'section' | 'checklist',
      saved: keyof typeof STRUCTURE_NOTICES,
      change: (actor: Actor, id: number, value: string, audit: Parameters<WebWrite<unknown>['write']>[0]) => Promise<unknown>,
      field: string,
    ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { user } = sessionOf(request);
      const [id, form] = [idParam(request), formOf(request)];
      const projectId = await structure.projectOf(user, kind, id);
      return structureWrite(request, reply, projectId, `${kind}-${id}`, saved, (audit) => change(user, id, form.get(field) ?? '', audit));
    };

  app.post('/sections/:id/rename', rowWrite('section', 'renamed', structure.renameSection, 'name'));
  app.post('/checklists/:id/rename', rowWrite('checklist', 'renamed', structure.renameChecklist, 'name'));
  app.post('/sections/:id/move', rowWrite('section', 'moved', structure.moveSection, 'direction'));
  app.post('/checklists/:id/move', rowWrite('checklist', 'moved', structure.moveChecklist, 'direction'));

  const newItemPage = formPage(webWrite, {
    entity: 'project',
    async view(request, projectId, failure) {
      const session = sessionOf(request);
      const query = request.query as Record<string, string | undefined>;
      const planId = parseId(query.plan);
      const [{ tree, members }, place] = await Promise.all([
        structure.newItemChoices(session.user, projectId),
        planId === null
          ? null
          : planViews.newItemPlace(session.user, projectId, planId, { x: fractionOf(query.x), y: fractionOf(query.y) }),
      ]);
      const checklistId = parseId(query.checklist);
      return newItemView({ session, project: tree.project, choices: checklistChoices(tree), members, checklistId, place, failure });
    },
  });

  app.get('/projects/:id/items/new', async (request, reply) => newItemPage.show(request, reply, idParam(request)));

  await uploadRoutes(app, (uploads) => {
    uploads.post('/projects/:id/items', { config: { ownCsrf: true } }, async (request, reply) => {
      const session = sessionOf(request);
      const id = idParam(request);
      const form = await readPhotoForm(request, session, 'item');
      try {
        const fields = new URLSearchParams(form.entries);
        return await newItemPage.write(request, reply, id, {
          form: 'item',
          fields,
          fingerprint: form.fingerprint,
          redirect: (itemId) => `/items/${itemId}?saved=created`,
          write: (audit) => {
            const checklist = parseId(fields.get('checklist'));
            if (checklist === null) throw validationError('checklist', 'choose a checklist');
            return structure.createItem(
              session.user,
              checklist,
              {
                text: fields.get('text') ?? '',
                description: fields.get('description') ?? '',
                participantIds: idsOf(fields, 'participants'),
                priority: fields.get('priority') ?? undefined,
                deadline: fields.get('deadline') ?? '',
                requires_answer: fields.has('requires_answer'),
                location: fields.get('plan_id')
                  ? {
                      planId: parseId(fields.get('plan_id')) ?? 0,
                      x: fractionOf(fields.get('plan_x')),
                      y: fractionOf(fields.get('plan_y')),
                    }
                  : null,
                prepareImages: form.files.length
                  ? () => attachments.prepare(form.files, photoDetailsOf({ stage: fields.get('stage'), caption: fields.get('caption') }))
                  : undefined,
                fromForm: true,
              },
              audit,
              id,
            );
          },
        });
      } finally {
        await form.cleanup();
      }
    });
  });
}
