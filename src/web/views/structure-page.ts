import type { ProjectRights } from '../../features/admin/structure.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { Translate } from '../../i18n/i18n.js';
import { html, type SafeHtml } from '../html.js';
import { crumbs, languageOf, page } from '../layout.js';
import type { FormFailure } from '../web-write.js';
import { FormState, selected } from './forms.js';
import { plural } from '../../domain/plural.js';
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

export const STRUCTURE_NOTICES: Record<string, string> = {
  section: 'The section was added.',
  checklist: 'The checklist was added.',
  renamed: 'The name was saved.',
  moved: 'The order was saved.',
  category: 'The category was added.',
  field: 'The field was added.',
  retired: 'The field was saved.',
  template: 'The template was saved.',
  'from-template': 'The checklist was added from the template.',
};

/** "Save as template" and "Add checklist from template" (docs/design.md §21). */
function templateForms(m: StructureModel) {
  const p = m.project;
  const save = new FormState('save-template', m.failure);
  const add = new FormState('from-template', m.failure);
  const choices = m.templates.flatMap((t) =>
    t.checklists.map((c, index) => ({ value: `${t.id}:${index}`, label: `${t.name} › ${c.section} › ${c.name}` })),
  );
  return html`<div class="card-grid">
<section class="card" aria-labelledby="save-template-title">
<h2 id="save-template-title">Save as template</h2>
${m.writeForm(
  `/projects/${p.id}/template`,
  html`${save.summary({ name: ['save-template-name', 'Template name'] })}<p class="hint">Keeps the sections, checklists, items, categories and fields — no states, people or photos.</p>
<label for="save-template-name">Template name</label>
<input id="save-template-name" type="text" name="name" required maxlength="200" value="${save.value('name')}" ${save.aria('name', 'save-template-name')}>
${save.message('name', 'save-template-name')}
<div class="actions"><button type="submit">Save template</button></div>`,
  { id: 'save-template' },
)}
</section>
${
  choices.length && m.sections.length
    ? html`<section class="card" aria-labelledby="from-template-title">
<h2 id="from-template-title">Add checklist from template</h2>
${m.writeForm(
  `/projects/${p.id}/checklists/from-template`,
  html`${add.summary({ template: ['from-template-template', 'Template'], section: ['from-template-section', 'Into section'] })}<label for="from-template-template">Template</label>
<select id="from-template-template" name="template" ${add.aria('template', 'from-template-template')}>${choices.map(
    (c) => html`<option value="${c.value}" ${selected(add.value('template') === c.value)}>${c.label}</option>`,
  )}</select>
${add.message('template', 'from-template-template')}
<label for="from-template-section">Into section</label>
<select id="from-template-section" name="section" ${add.aria('section', 'from-template-section')}>${m.sections.map(
    (s) => html`<option value="${s.id}" ${selected(add.value('section') === String(s.id))}>${s.name}</option>`,
  )}</select>
${add.message('section', 'from-template-section')}
<div class="actions"><button type="submit">Add checklist</button></div>`,
  { id: 'from-template' },
)}
</section>`
    : ''
}
</div>`;
}

function moveButtons(m: StructureModel, action: string, what: string) {
  return html`<span class="move">${(['up', 'down'] as const).map((direction) =>
    m.writeForm(
      action,
      html`<input type="hidden" name="direction" value="${direction}"><button type="submit" class="secondary small" aria-label="${`Move ${what} ${direction}`}">${direction === 'up' ? '↑' : '↓'}</button>`,
      { className: 'inline' },
    ),
  )}</span>`;
}

function renameForm(m: StructureModel, form: string, action: string, label: string, value: string) {
  return renameRow({ failure: m.failure, writeForm: m.writeForm, maxLength: 200 }, form, action, label, value);
}

/** The project's sections and checklists, to add, rename and reorder (managers and admins; docs/design.md §14). */
export function structurePageView(m: StructureModel): string {
  const p = m.project;
  const newSection = new FormState('new-section', m.failure);
  const newChecklist = new FormState('new-checklist', m.failure);
  const chosenSection = newChecklist.value('section');
  return page({
    title: `Sections and checklists · ${p.name}`,
    session: m.session,
    path: '/projects',
    notice: m.notice,
    error: m.failure ? html`Nothing was saved: please check the form. <a href="#${m.failure.form}">Go to the form</a>` : null,
    body: html`${crumbs([
      { href: '/projects', label: 'Projects' },
      { href: `/projects/${p.id}`, label: p.name },
    ])}
<h1>Sections and checklists</h1>
<div class="card-grid">
<section class="card" aria-labelledby="new-section-title">
<h2 id="new-section-title">Add section</h2>
${m.writeForm(
  `/projects/${p.id}/sections`,
  html`${newSection.summary({ name: ['new-section-name', 'Section name'] })}<label for="new-section-name">Section name</label>
<input id="new-section-name" type="text" name="name" required maxlength="200" value="${newSection.value('name')}" ${newSection.aria('name', 'new-section-name')}>
${newSection.message('name', 'new-section-name')}
<div class="actions"><button type="submit">Add section</button></div>`,
  { id: 'new-section' },
)}
</section>
${
  m.sections.length
    ? html`<section class="card" aria-labelledby="new-checklist-title">
<h2 id="new-checklist-title">Add checklist</h2>
${m.writeForm(
  `/projects/${p.id}/checklists`,
  html`${newChecklist.summary({ section: ['new-checklist-section', 'Section'], name: ['new-checklist-name', 'Checklist name'] })}<label for="new-checklist-section">Section</label>
<select id="new-checklist-section" name="section" ${newChecklist.aria('section', 'new-checklist-section')}>${m.sections.map(
    (s, i) =>
      html`<option value="${s.id}" ${selected(chosenSection ? chosenSection === String(s.id) : i === m.sections.length - 1)}>${s.name}</option>`,
  )}</select>
${newChecklist.message('section', 'new-checklist-section')}
<label for="new-checklist-name">Checklist name</label>
<input id="new-checklist-name" type="text" name="name" required maxlength="200" value="${newChecklist.value('name')}" ${newChecklist.aria('name', 'new-checklist-name')}>
${newChecklist.message('name', 'new-checklist-name')}
<div class="actions"><button type="submit">Add checklist</button></div>`,
  { id: 'new-checklist' },
)}
</section>`
    : ''
}
</div>
${m.sections.map(
  (s) => html`<section class="card" id="section-${s.id}" aria-labelledby="section-${s.id}-title">
<h2 id="section-${s.id}-title">${s.name} ${moveButtons(m, `/sections/${s.id}/move`, `section ${s.name}`)}</h2>
${renameForm(m, `section-${s.id}`, `/sections/${s.id}/rename`, `Rename section “${s.name}”`, s.name)}
${
  s.checklists.length
    ? html`<ul class="structure">${s.checklists.map(
        (c) => html`<li id="checklist-${c.id}"><p><strong>${c.name}</strong> <span class="muted">(${plural(c.items.length, 'item')})</span>
${moveButtons(m, `/checklists/${c.id}/move`, `checklist ${c.name}`)} <a href="/projects/${p.id}/items/new?checklist=${c.id}">Add item here</a></p>
${renameForm(m, `checklist-${c.id}`, `/checklists/${c.id}/rename`, `Rename checklist “${c.name}”`, c.name)}</li>`,
      )}</ul>`
    : html`<p class="muted">No checklists in this section yet.</p>`
}
</section>`,
)}
${vocabularySections({ projectId: p.id, vocabulary: m.vocabulary, failure: m.failure, writeForm: m.writeForm })}
${escalationSection({ projectId: p.id, escalation: m.escalation, failure: m.failure, writeForm: m.writeForm, t: languageOf(m.session).t })}
${templateForms(m)}`,
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
