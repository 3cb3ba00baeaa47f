import { photoDetailsOf } from '../../features/items/index.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import type { Actor } from '../../domain/policy.js';
import type { ProjectTree } from '../../features/projects/projects.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { formOf, fractionOf, idParam, parseId } from '../form.js';
import { type SafeHtml, html } from '../html.js';
import { csrfField, languageOf, writeKeyField } from '../layout.js';
import { sessionOf } from '../session.js';
import { readPhotoForm, uploadRoutes } from '../uploads.js';
import { type ChecklistChoice, newItemView } from '../views/item-form.js';
import { STRUCTURE_NOTICES, structurePageView } from '../views/structure-page.js';
import { formPage } from '../form-page.js';
import type { FormFailure, WebWrite, WebWriter } from '../web-write.js';
import type { AuditEntryBuilder } from '../../features/write-path/write-path.js';
import {
  directionOf,
  escalationOf,
  nameOf,
  newChecklistOf,
  newFieldOf,
  newItemOf,
  newItemPhotosOf,
  retiredOf,
  templateChecklistOf,
} from './structure-forms.js';

type StructureDeps = Pick<AppContext, 'structure' | 'itemEdits' | 'attachments' | 'planViews' | 'vocabulary' | 'templates'> & {
  webWrite: WebWriter;
};

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

/** The structure page of one project, with the refused form when there is one. */
async function structureView(deps: StructureDeps, request: FastifyRequest, projectId: number, failure: FormFailure | null) {
  const { structure, vocabulary, templates } = deps;
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
}

type Saved = keyof typeof STRUCTURE_NOTICES;

/** What each route's handler gets: the services, and the write of one of the structure page's forms. */
interface StructureRoutes {
  deps: StructureDeps;
  /** A post of the structure page: back to it (at the section), or the page again with the refused form. */
  write<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    projectId: number,
    form: string,
    saved: Saved,
    write: WebWrite<T>['write'],
  ): Promise<FastifyReply>;
}

type Handler = (routes: StructureRoutes, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
type Audit = AuditEntryBuilder & Parameters<WebWrite<unknown>['write']>[0];

/** A form posted to /projects/<id>/…: `run` parses it and calls one service, inside the form path's write. */
const projectForm =
  (
    name: string,
    saved: Saved,
    run: (deps: StructureDeps, user: Actor, id: number, form: URLSearchParams, audit: Audit) => Promise<unknown>,
  ): Handler =>
  ({ deps, write }, request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return write(request, reply, id, name, saved, (audit) => run(deps, user, id, form, audit));
  };

/** Rename and move of a section or checklist: the project comes from the row, the form names the row. */
const rowForm =
  (
    kind: 'section' | 'checklist',
    saved: Saved,
    change: (structure: StructureDeps['structure'], actor: Actor, id: number, value: string, audit: Audit) => Promise<unknown>,
    field: (form: URLSearchParams) => string,
  ): Handler =>
  async ({ deps, write }, request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    const projectId = await deps.structure.projectOf(user, kind, id);
    return write(request, reply, projectId, `${kind}-${id}`, saved, (audit) => change(deps.structure, user, id, field(form), audit));
  };

/** A category's or field's change: the project comes from the row (404 when unseen), the form names the row. */
const vocabularyForm =
  (
    kind: 'category' | 'field',
    saved: Saved,
    change: (vocabulary: StructureDeps['vocabulary'], actor: Actor, id: number, form: URLSearchParams, audit: Audit) => Promise<unknown>,
  ): Handler =>
  async ({ deps, write }, request, reply) => {
    const { user } = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    const projectId = await deps.vocabulary.projectOf(user, kind, id);
    return write(request, reply, projectId, `${kind}-${id}`, saved, (audit) => change(deps.vocabulary, user, id, form, audit));
  };

const addSection = projectForm('new-section', 'section', (deps, user, id, form, audit) =>
  deps.structure.createSection(user, id, nameOf(form), audit),
);
const addChecklist = projectForm('new-checklist', 'checklist', (deps, user, id, form, audit) => {
  const { sectionId, name } = newChecklistOf(form);
  return deps.structure.createChecklist(user, sectionId, name, audit, id);
});
const renameSection = rowForm('section', 'renamed', (s, user, id, value, audit) => s.renameSection(user, id, value, audit), nameOf);
const renameChecklist = rowForm('checklist', 'renamed', (s, user, id, value, audit) => s.renameChecklist(user, id, value, audit), nameOf);
const moveSection = rowForm('section', 'moved', (s, user, id, value, audit) => s.moveSection(user, id, value, audit), directionOf);
const moveChecklist = rowForm('checklist', 'moved', (s, user, id, value, audit) => s.moveChecklist(user, id, value, audit), directionOf);

// The project's categories and fields (docs/design.md §21).
const addCategory = projectForm('new-category', 'category', (deps, user, id, form, audit) =>
  deps.vocabulary.addCategory(user, id, nameOf(form), audit),
);
// Templates (docs/design.md §21): save the project as one; add one of a template's checklists.
const saveTemplate = projectForm('save-template', 'template', (deps, user, id, form, audit) =>
  deps.templates.saveProject(user, id, nameOf(form), audit),
);
const checklistFromTemplate = projectForm('from-template', 'from-template', (deps, user, id, form, audit) =>
  deps.templates.addChecklist(user, id, templateChecklistOf(form), audit),
);
const addField = projectForm('new-field', 'field', (deps, user, id, form, audit) =>
  deps.vocabulary.addField(user, id, newFieldOf(form), audit),
);
const renameCategory = vocabularyForm('category', 'renamed', (v, user, id, form, audit) => v.renameCategory(user, id, nameOf(form), audit));
const renameField = vocabularyForm('field', 'renamed', (v, user, id, form, audit) => v.renameField(user, id, nameOf(form), audit));
const retireField = vocabularyForm('field', 'retired', (v, user, id, form, audit) => v.retireField(user, id, retiredOf(form), audit));
// The escalation ladder (docs/design.md §21): on with its days, or off (the box unticked).
const setEscalation = projectForm('escalation-form', 'escalation', (deps, user, id, form, audit) =>
  deps.vocabulary.setEscalation(user, id, escalationOf(form), audit),
);

/** "Add item": the page of one project, with the refused form when there is one. */
async function newItemPageView(deps: StructureDeps, request: FastifyRequest, projectId: number, failure: FormFailure | null) {
  const { itemEdits, planViews, vocabulary } = deps;
  const session = sessionOf(request);
  const query = request.query as Record<string, string | undefined>;
  const planId = parseId(query.plan);
  const [{ tree, members, companies }, place, projectVocabulary] = await Promise.all([
    itemEdits.newItemChoices(session.user, projectId),
    planId === null ? null : planViews.newItemPlace(session.user, projectId, planId, { x: fractionOf(query.x), y: fractionOf(query.y) }),
    vocabulary.vocabularyOf(session.user, projectId),
  ]);
  return newItemView({
    session,
    project: tree.project,
    choices: checklistChoices(tree),
    members,
    vocabulary: projectVocabulary,
    companies,
    checklistId: parseId(query.checklist),
    place,
    failure,
  });
}

/** "Add item" (multipart: its photos): read with its CSRF check, its temp files removed whatever happens. */
async function createItem(deps: StructureDeps, newItemPage: ReturnType<typeof formPage>, request: FastifyRequest, reply: FastifyReply) {
  const session = sessionOf(request);
  const id = idParam(request);
  const form = await readPhotoForm(request, session, 'item');
  try {
    const fields = new URLSearchParams(form.entries);
    const prepareImages = form.files.length
      ? () => deps.attachments.prepare(form.files, photoDetailsOf(newItemPhotosOf(fields)))
      : undefined;
    return await newItemPage.write(request, reply, id, {
      form: 'item',
      fields,
      fingerprint: form.fingerprint,
      redirect: (itemId) => `/items/${itemId}?saved=created`,
      write: (audit) => {
        const { checklistId, input } = newItemOf(fields);
        return deps.itemEdits.createItem(session.user, checklistId, { ...input, prepareImages }, audit, id);
      },
    });
  } finally {
    await form.cleanup();
  }
}

/**
 * Structure from the project side (docs/design.md §14), for the project's managers and admins: sections and
 * checklists on /projects/<id>/structure, "Add item" on /projects/<id>/items/new. Every post goes through
 * webWrite (idempotency key, audit record in the write's transaction, 422 shown again, 303).
 */
export async function structurePages(app: FastifyInstance, deps: StructureDeps) {
  const structurePage = formPage(deps.webWrite, {
    entity: 'project',
    view: (request, id, failure) => structureView(deps, request, id, failure),
  });
  const routes: StructureRoutes = {
    deps,
    write: (request, reply, projectId, form, saved, write) =>
      structurePage.write(request, reply, projectId, {
        form,
        fields: formOf(request),
        redirect: () => `/projects/${projectId}/structure?saved=${saved}`,
        write,
      }),
  };
  const post = (path: string, handler: Handler) => app.post(path, (request, reply) => handler(routes, request, reply));

  app.get('/projects/:id/structure', async (request, reply) => structurePage.show(request, reply, idParam(request)));
  post('/projects/:id/sections', addSection);
  post('/projects/:id/checklists', addChecklist);
  post('/sections/:id/rename', renameSection);
  post('/projects/:id/categories', addCategory);
  post('/projects/:id/template', saveTemplate);
  post('/projects/:id/checklists/from-template', checklistFromTemplate);
  post('/projects/:id/fields', addField);
  post('/categories/:id/rename', renameCategory);
  post('/fields/:id/rename', renameField);
  post('/fields/:id/retire', retireField);
  post('/projects/:id/escalation', setEscalation);
  post('/checklists/:id/rename', renameChecklist);
  post('/sections/:id/move', moveSection);
  post('/checklists/:id/move', moveChecklist);

  const newItemPage = formPage(deps.webWrite, {
    entity: 'project',
    view: (request, id, failure) => newItemPageView(deps, request, id, failure),
  });
  app.get('/projects/:id/items/new', async (request, reply) => newItemPage.show(request, reply, idParam(request)));
  await uploadRoutes(app, (uploads) => {
    uploads.post('/projects/:id/items', { config: { ownCsrf: true } }, (request, reply) => createItem(deps, newItemPage, request, reply));
  });
}
