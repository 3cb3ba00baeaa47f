import { photoDetailsOf } from '../../features/attachments/attachments.service.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import type { Actor } from '../../domain/policy.js';
import { invalidField } from '../../i18n/reasons.js';
import type { ProjectTree } from '../../features/projects/projects.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { companyOf, formOf, fractionOf, idParam, idsOf, parseId, vocabularyOf } from '../form.js';
import { type SafeHtml, html } from '../html.js';
import { csrfField, languageOf, writeKeyField } from '../layout.js';
import { sessionOf } from '../session.js';
import { readPhotoForm, uploadRoutes } from '../uploads.js';
import { type ChecklistChoice, newItemView } from '../views/item-form.js';
import { STRUCTURE_NOTICES, structurePageView } from '../views/structure-page.js';
import { formPage } from '../form-page.js';
import type { WebWrite, WebWriter } from '../web-write.js';

type StructureDeps = Pick<AppContext, 'structure' | 'attachments' | 'planViews' | 'vocabulary' | 'templates'> & { webWrite: WebWriter };

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
  const { structure, attachments, planViews, vocabulary, templates, webWrite } = deps;

  const structurePage = formPage(webWrite, {
    entity: 'project',
    async view(request, projectId, failure) {
      const session = sessionOf(request);
      const tree = await structure.structureOf(session.user, projectId);
      const [projectVocabulary, templateList, escalation] = await Promise.all([
        vocabulary.vocabularyOf(session.user, projectId),
        templates.list(),
        vocabulary.escalationOf(session.user, projectId),
      ]);
      const saved = (request.query as Record<string, string | undefined>).saved ?? '';
      const key = Object.hasOwn(STRUCTURE_NOTICES, saved) ? STRUCTURE_NOTICES[saved] : undefined;
      const notice = key ? languageOf(session).t(key) : null;
      return structurePageView({
        session,
        project: tree.project,
        sections: tree.sections,
        vocabulary: projectVocabulary,
        escalation,
        templates: templateList,
        notice: failure ? null : notice,
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
      if (section === null) throw invalidField('section', 'reason.chooseSection');
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

  // The project's categories and fields (docs/design.md §21).
  app.post('/projects/:id/categories', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return structureWrite(request, reply, id, 'new-category', 'category', (audit) =>
      vocabulary.addCategory(user, id, form.get('name') ?? '', audit),
    );
  });
  // Templates (docs/design.md §21): save the project as one; add one of a template's checklists.
  app.post('/projects/:id/template', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return structureWrite(request, reply, id, 'save-template', 'template', (audit) =>
      templates.saveProject(user, id, form.get('name') ?? '', audit),
    );
  });
  app.post('/projects/:id/checklists/from-template', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return structureWrite(request, reply, id, 'from-template', 'from-template', (audit) => {
      const [template, checklist] = (form.get('template') ?? '').split(':');
      const templateId = parseId(template);
      if (templateId === null || !/^\d{1,6}$/.test(checklist ?? '')) throw invalidField('template', 'reason.chooseTemplate');
      const sectionId = parseId(form.get('section'));
      if (sectionId === null) throw invalidField('section', 'reason.chooseProjectSection');
      return templates.addChecklist(user, id, { templateId, checklist: Number(checklist), sectionId }, audit);
    });
  });
  app.post('/projects/:id/fields', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    const input = {
      name: form.get('name') ?? '',
      kind: form.get('kind') ?? '',
      options: form.get('options') ?? '',
      required: form.has('required'),
    };
    return structureWrite(request, reply, id, 'new-field', 'field', (audit) => vocabulary.addField(user, id, input, audit));
  });
  /** A category's or field's change: the project comes from the row (404 when unseen), the form names the row. */
  const vocabularyWrite =
    (
      kind: 'category' | 'field',
      saved: keyof typeof STRUCTURE_NOTICES,
      change: (actor: Actor, id: number, form: URLSearchParams, audit: Parameters<WebWrite<unknown>['write']>[0]) => Promise<unknown>,
    ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { user } = sessionOf(request);
      const [id, form] = [idParam(request), formOf(request)];
      const projectId = await vocabulary.projectOf(user, kind, id);
      return structureWrite(request, reply, projectId, `${kind}-${id}`, saved, (audit) => change(user, id, form, audit));
    };
  app.post(
    '/categories/:id/rename',
    vocabularyWrite('category', 'renamed', (user, id, form, audit) => vocabulary.renameCategory(user, id, form.get('name') ?? '', audit)),
  );
  app.post(
    '/fields/:id/rename',
    vocabularyWrite('field', 'renamed', (user, id, form, audit) => vocabulary.renameField(user, id, form.get('name') ?? '', audit)),
  );
  app.post(
    '/fields/:id/retire',
    vocabularyWrite('field', 'retired', (user, id, form, audit) => vocabulary.retireField(user, id, form.get('retired') !== '0', audit)),
  );
  // The escalation ladder (docs/design.md §21): on with its days, or off (the box unticked).
  app.post('/projects/:id/escalation', async (request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    const input = form.has('enabled')
      ? { everyDays: form.get('every_days') ?? '', managersAfterDays: form.get('managers_after_days') ?? '' }
      : null;
    return structureWrite(request, reply, id, 'escalation-form', 'escalation', (audit) => vocabulary.setEscalation(user, id, input, audit));
  });
  app.post('/checklists/:id/rename', rowWrite('checklist', 'renamed', structure.renameChecklist, 'name'));
  app.post('/sections/:id/move', rowWrite('section', 'moved', structure.moveSection, 'direction'));
  app.post('/checklists/:id/move', rowWrite('checklist', 'moved', structure.moveChecklist, 'direction'));

  const newItemPage = formPage(webWrite, {
    entity: 'project',
    async view(request, projectId, failure) {
      const session = sessionOf(request);
      const query = request.query as Record<string, string | undefined>;
      const planId = parseId(query.plan);
      const [{ tree, members, companies }, place, projectVocabulary] = await Promise.all([
        structure.newItemChoices(session.user, projectId),
        planId === null
          ? null
          : planViews.newItemPlace(session.user, projectId, planId, { x: fractionOf(query.x), y: fractionOf(query.y) }),
        vocabulary.vocabularyOf(session.user, projectId),
      ]);
      const checklistId = parseId(query.checklist);
      return newItemView({
        session,
        project: tree.project,
        choices: checklistChoices(tree),
        members,
        vocabulary: projectVocabulary,
        companies,
        checklistId,
        place,
        failure,
      });
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
            if (checklist === null) throw invalidField('checklist', 'reason.chooseChecklist');
            return structure.createItem(
              session.user,
              checklist,
              {
                text: fields.get('text') ?? '',
                description: fields.get('description') ?? '',
                participantIds: idsOf(fields, 'participants'),
                companyId: companyOf(fields) ?? null,
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
                vocabulary: vocabularyOf(fields),
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
