import type { ProjectRights } from '../../features/admin/structure.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { MessageKey, Translate } from '../../i18n/i18n.js';
import { html, type SafeHtml } from '../html.js';
import { crumbs, languageOf, page } from '../layout.js';
import type { FormFailure } from '../web-write.js';
import { FormState, selected } from './forms.js';
import type { Vocabulary } from '../../features/vocabulary/vocabulary.service.js';
import type { TemplateSummary } from '../../features/templates/templates.service.js';
import { escalationSection, renameRow, vocabularySections } from './vocabulary-forms.js';
import type { EscalationLadder } from '../../domain/escalation.js';

interface StructureModel {
  session: WebSession;
  project: { id: number; name: string };
  sections: { id: number; name: string; checklists: { id: number; name: string; items: unknown[] }[] }[];
  vocabulary: Vocabulary;
  escalation: EscalationLadder | null;
  templates: TemplateSummary[];
  notice: string | null;
  failure: FormFailure | null;
  /** Wraps a form's fields with its CSRF token and idempotency key. */
  writeForm: (action: string, body: SafeHtml, options?: { id?: string; className?: string }) => SafeHtml;
}

/** The notice of each `?saved=` of the structure page, by its message. */
export const STRUCTURE_NOTICES: Record<string, MessageKey> = {
  section: 'structure.saved.section',
  checklist: 'structure.saved.checklist',
  renamed: 'structure.saved.renamed',
  moved: 'structure.saved.moved',
  category: 'structure.saved.category',
  field: 'structure.saved.field',
  retired: 'structure.saved.retired',
  template: 'structure.saved.template',
  'from-template': 'structure.saved.fromTemplate',
  escalation: 'vocab.escalation.saved',
};

/** "Save as template" and "Add checklist from template" (docs/design.md §21). */
function templateForms(m: StructureModel, t: Translate) {
  const p = m.project;
  const save = new FormState('save-template', m.failure, t);
  const add = new FormState('from-template', m.failure, t);
  const choices = m.templates.flatMap((t) =>
    t.checklists.map((c, index) => ({ value: `${t.id}:${index}`, label: `${t.name} › ${c.section} › ${c.name}` })),
  );
  return html`<div class="card-grid">
<section class="card" aria-labelledby="save-template-title">
<h2 id="save-template-title">${t('structure.saveAsTemplate')}</h2>
${m.writeForm(
  `/projects/${p.id}/template`,
  html`${save.summary({ name: ['save-template-name', t('structure.templateName')] })}<p class="hint">${t('structure.templateHint')}</p>
<label for="save-template-name">${t('structure.templateName')}</label>
<input id="save-template-name" type="text" name="name" required maxlength="200" value="${save.value('name')}" ${save.aria('name', 'save-template-name')}>
${save.message('name', 'save-template-name')}
<div class="actions"><button type="submit">${t('structure.saveTemplate')}</button></div>`,
  { id: 'save-template' },
)}
</section>
${
  choices.length && m.sections.length
    ? html`<section class="card" aria-labelledby="from-template-title">
<h2 id="from-template-title">${t('structure.addFromTemplate')}</h2>
${m.writeForm(
  `/projects/${p.id}/checklists/from-template`,
  html`${add.summary({
    template: ['from-template-template', t('structure.template')],
    section: ['from-template-section', t('structure.intoSection')],
  })}<label for="from-template-template">${t('structure.template')}</label>
<select id="from-template-template" name="template" ${add.aria('template', 'from-template-template')}>${choices.map(
    (c) => html`<option value="${c.value}" ${selected(add.value('template') === c.value)}>${c.label}</option>`,
  )}</select>
${add.message('template', 'from-template-template')}
<label for="from-template-section">${t('structure.intoSection')}</label>
<select id="from-template-section" name="section" ${add.aria('section', 'from-template-section')}>${m.sections.map(
    (s) => html`<option value="${s.id}" ${selected(add.value('section') === String(s.id))}>${s.name}</option>`,
  )}</select>
${add.message('section', 'from-template-section')}
<div class="actions"><button type="submit">${t('structure.addChecklist')}</button></div>`,
  { id: 'from-template' },
)}
</section>`
    : ''
}
</div>`;
}

/** The ↑ and ↓ of a section or checklist, labelled by its kind and name. */
function moveButtons(m: StructureModel, action: string, labels: { up: string; down: string }) {
  return html`<span class="move">${(['up', 'down'] as const).map((direction) =>
    m.writeForm(
      action,
      html`<input type="hidden" name="direction" value="${direction}"><button type="submit" class="secondary small" aria-label="${labels[direction]}">${direction === 'up' ? '↑' : '↓'}</button>`,
      { className: 'inline' },
    ),
  )}</span>`;
}

function renameForm(m: StructureModel, t: Translate, form: string, action: string, label: string, value: string) {
  return renameRow({ failure: m.failure, writeForm: m.writeForm, maxLength: 200, t }, form, action, label, value);
}

/** The project's sections and checklists, to add, rename and reorder (managers and admins; docs/design.md §14). */
export function structurePageView(m: StructureModel): string {
  const p = m.project;
  const t = languageOf(m.session).t;
  const newSection = new FormState('new-section', m.failure, t);
  const newChecklist = new FormState('new-checklist', m.failure, t);
  const chosenSection = newChecklist.value('section');
  return page({
    title: t('structure.pageTitle', { project: p.name }),
    session: m.session,
    path: '/projects',
    notice: m.notice,
    error: m.failure ? html`${t('structure.nothingSaved')} <a href="#${m.failure.form}">${t('structure.goToForm')}</a>` : null,
    body: html`${crumbs(
      [
        { href: '/projects', label: t('nav.projects') },
        { href: `/projects/${p.id}`, label: p.name },
      ],
      t,
    )}
<h1>${t('structure.title')}</h1>
<div class="card-grid">
<section class="card" aria-labelledby="new-section-title">
<h2 id="new-section-title">${t('structure.addSection')}</h2>
${m.writeForm(
  `/projects/${p.id}/sections`,
  html`${newSection.summary({ name: ['new-section-name', t('structure.sectionName')] })}<label for="new-section-name">${t('structure.sectionName')}</label>
<input id="new-section-name" type="text" name="name" required maxlength="200" value="${newSection.value('name')}" ${newSection.aria('name', 'new-section-name')}>
${newSection.message('name', 'new-section-name')}
<div class="actions"><button type="submit">${t('structure.addSection')}</button></div>`,
  { id: 'new-section' },
)}
</section>
${
  m.sections.length
    ? html`<section class="card" aria-labelledby="new-checklist-title">
<h2 id="new-checklist-title">${t('structure.addChecklist')}</h2>
${m.writeForm(
  `/projects/${p.id}/checklists`,
  html`${newChecklist.summary({
    section: ['new-checklist-section', t('structure.section')],
    name: ['new-checklist-name', t('structure.checklistName')],
  })}<label for="new-checklist-section">${t('structure.section')}</label>
<select id="new-checklist-section" name="section" ${newChecklist.aria('section', 'new-checklist-section')}>${m.sections.map(
    (s, i) =>
      html`<option value="${s.id}" ${selected(chosenSection ? chosenSection === String(s.id) : i === m.sections.length - 1)}>${s.name}</option>`,
  )}</select>
${newChecklist.message('section', 'new-checklist-section')}
<label for="new-checklist-name">${t('structure.checklistName')}</label>
<input id="new-checklist-name" type="text" name="name" required maxlength="200" value="${newChecklist.value('name')}" ${newChecklist.aria('name', 'new-checklist-name')}>
${newChecklist.message('name', 'new-checklist-name')}
<div class="actions"><button type="submit">${t('structure.addChecklist')}</button></div>`,
  { id: 'new-checklist' },
)}
</section>`
    : ''
}
</div>
${m.sections.map(
  (s) => html`<section class="card" id="section-${s.id}" aria-labelledby="section-${s.id}-title">
<h2 id="section-${s.id}-title">${s.name} ${moveButtons(m, `/sections/${s.id}/move`, {
    up: t('structure.moveSectionUp', { name: s.name }),
    down: t('structure.moveSectionDown', { name: s.name }),
  })}</h2>
${renameForm(m, t, `section-${s.id}`, `/sections/${s.id}/rename`, t('structure.renameSection', { name: s.name }), s.name)}
${
  s.checklists.length
    ? html`<ul class="structure">${s.checklists.map(
        (
          c,
        ) => html`<li id="checklist-${c.id}"><p><strong>${c.name}</strong> <span class="muted">(${t('structure.itemCount', { count: c.items.length })})</span>
${moveButtons(m, `/checklists/${c.id}/move`, {
  up: t('structure.moveChecklistUp', { name: c.name }),
  down: t('structure.moveChecklistDown', { name: c.name }),
})} <a href="/projects/${p.id}/items/new?checklist=${c.id}">${t('structure.addItemHere')}</a></p>
${renameForm(m, t, `checklist-${c.id}`, `/checklists/${c.id}/rename`, t('structure.renameChecklist', { name: c.name }), c.name)}</li>`,
      )}</ul>`
    : html`<p class="muted">${t('structure.noChecklists')}</p>`
}
</section>`,
)}
${vocabularySections({ projectId: p.id, vocabulary: m.vocabulary, failure: m.failure, writeForm: m.writeForm, t })}
${escalationSection({ projectId: p.id, escalation: m.escalation, failure: m.failure, writeForm: m.writeForm, t })}
${templateForms(m, t)}`,
  }).value;
}

/** The project page's structure links, for those who may use them (docs/design.md §14). */
export function structureLinks(projectId: number, rights: ProjectRights, t: Translate) {
  if (!rights.addItems && !rights.structure) return null;
  return html`<p class="toolbar" data-testid="structure-links">
${rights.addItems ? html`<a class="button" href="/projects/${projectId}/items/new">${t('itemForm.add')}</a>` : ''}
${
  rights.structure
    ? html`<a class="button secondary" href="/projects/${projectId}/structure#new-section">${t('project.links.addSection')}</a>
<a class="button secondary" href="/projects/${projectId}/structure#new-checklist">${t('project.links.addChecklist')}</a>
<a href="/projects/${projectId}/structure">${t('project.links.structure')}</a>
<a class="button secondary" href="/projects/${projectId}/structure#save-template">${t('project.links.template')}</a>`
    : ''
}
</p>`;
}
