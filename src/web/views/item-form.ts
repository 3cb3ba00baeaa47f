import { MAX_CAPTION_LENGTH, PRIORITIES } from '../../domain/values.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { PLAN_VIEWER_SCRIPT } from '../assets.js';
import { html, type SafeHtml } from '../html.js';
import { crumbs, csrfField, languageOf, page, writeKeyField } from '../layout.js';
import type { Translate } from '../../i18n/i18n.js';
import { priorityLabel } from './project-page.js';
import type { FormFailure } from '../web-write.js';
import type { CompanyView } from '../../features/companies/companies.service.js';
import { companyOptions } from './admin-companies.js';
import { checked, FormState, selected } from './forms.js';
import type { Vocabulary } from '../../features/vocabulary/vocabulary.service.js';
import { itemVocabularyFields, vocabularySummary } from './vocabulary-forms.js';

export interface Member {
  id: number;
  name: string;
  role: string;
}

/** The checklists an item may be put in, under their sections (what the user sees of the project). */
export interface ChecklistChoice {
  section: { id: number; name: string };
  checklists: { id: number; name: string }[];
}

// Any image: the page converts what the server does not take (a phone's HEIC) to JPEG, scaled down (static/offline.js).
const ACCEPTED_IMAGES = 'image/*';

/**
 * The photo control of every photo form (Add item, the item page, an answer): the label drawn as a button of at
 * least 44 px (docs/design.md §16) with the file input laid over it, so the whole button opens the camera or the files.
 */
export function photoPicker(form: FormState, id: string, text: string, options: { capture?: boolean; hint: string }, t: Translate) {
  return html`<div class="photo-pick"><label for="${id}" class="button secondary">${text}</label>
<input id="${id}" type="file" name="attachments[]" accept="${ACCEPTED_IMAGES}" multiple ${options.capture ? html`capture="environment"` : ''} data-preview ${form.aria('attachments[]', id)}></div>
<p class="hint">${options.hint}</p>
${form.message('attachments[]', id)}
${photoDetailsFields(form, id, t)}`;
}

/**
 * "Stage" and "Caption" of the photos an upload form sends (docs/design.md §22): the stage by default follows when
 * and where they are added; one caption for the photos of one upload.
 */
export function photoDetailsFields(
  form: FormState,
  id: string,
  t: Translate,
  current: { stage?: string | null; caption?: string | null } = {},
) {
  const stage = form.value('stage', current.stage === undefined ? '' : (current.stage ?? 'none'));
  const choices: [string, string][] = [
    ...(current.stage === undefined ? [['', t('photos.stage.asAdded')] as [string, string]] : []),
    ['defect', t('photos.stage.defect')],
    ['fix', t('photos.stage.fix')],
    ['none', t('photos.stage.none')],
  ];
  return html`<div class="photo-details">
<div><label for="${id}-stage">${t('photos.stage')}</label>
<select id="${id}-stage" name="stage" ${form.aria('stage', `${id}-stage`)}>${choices.map(
    ([value, text]) => html`<option value="${value}" ${selected(stage === value)}>${text}</option>`,
  )}</select>
${form.message('stage', `${id}-stage`)}</div>
<div><label for="${id}-caption">${t('photos.caption')}</label>
<input id="${id}-caption" type="text" name="caption" maxlength="${MAX_CAPTION_LENGTH}" value="${form.value('caption', current.caption ?? '')}" ${form.aria('caption', `${id}-caption`)}>
${form.message('caption', `${id}-caption`)}</div>
</div>`;
}

/** The project's members to pick participants from: a multiple select (a native picker on phones). */
function participantsField(form: FormState, id: string, members: readonly Member[], current: readonly number[], t: Translate) {
  const picked = form.failed ? form.values('participants').map(Number) : current;
  if (members.length === 0) return html`<p class="muted">${t('itemForm.noMembers')}</p>`;
  return html`<label for="${id}">${t('project.participants')}</label>
<select id="${id}" name="participants" multiple size="${Math.min(6, Math.max(3, members.length))}" aria-describedby="${id}-hint" ${form.aria('participants', id)}>
${members.map((m) => html`<option value="${m.id}" ${selected(picked.includes(m.id))}>${m.name} (${roleLabel(t, m.role)})</option>`)}
</select>
<p class="hint" id="${id}-hint">${t('itemForm.participantsHint')}</p>
${form.message('participants', id)}`;
}

/** "Company" (docs/design.md §20): the active companies, the item's own kept even when retired, or none. */
/** A member's role in the page's language (manager, executor, observer); another value as it is. */
export const roleLabel = (t: Translate, role: string) =>
  role === 'manager' || role === 'executor' || role === 'observer' ? t(`role.${role}`) : role;

function companyField(form: FormState, id: string, companies: readonly CompanyView[], current: number | null, t: Translate) {
  const value = form.value('company', current === null ? '' : String(current));
  return html`<label for="${id}">${t('project.company')}</label>
<select id="${id}" name="company" ${form.aria('company', id)}>${companyOptions(companies, value === '' ? null : Number(value), t('project.bulk.noCompany'))}</select>
${form.message('company', id)}`;
}

function checklistField(form: FormState, id: string, choices: readonly ChecklistChoice[], current: number | null, t: Translate) {
  const value = form.value('checklist', current === null ? '' : String(current));
  return html`<label for="${id}">${t('itemForm.checklist')}</label>
<select id="${id}" name="checklist" required ${form.aria('checklist', id)}>
${current === null ? html`<option value="">${t('itemForm.chooseChecklist')}</option>` : ''}
${choices.map(
  (c) =>
    html`<optgroup label="${c.section.name}">${c.checklists.map(
      (l) => html`<option value="${l.id}" ${selected(value === String(l.id))}>${l.name}</option>`,
    )}</optgroup>`,
)}
</select>
${form.message('checklist', id)}`;
}

interface NewItemModel {
  session: WebSession;
  project: { id: number; name: string };
  choices: ChecklistChoice[];
  members: Member[];
  vocabulary: Vocabulary;
  /** The companies to choose the responsible one from (docs/design.md §20). */
  companies: CompanyView[];
  /** The checklist chosen beforehand (`?checklist=`), if any. */
  checklistId: number | null;
  /** "Add item here" on a plan (`?plan=&x=&y=`): the plan and the place tapped. */
  place: NewItemPlace | null;
  failure: FormFailure | null;
}

/** Where a new item raised on a plan is: the fields the script fills from the address, and the crop shown. */
export interface NewItemPlace {
  plan: { id: number; name: string; sheet: string };
  x: number | null;
  y: number | null;
}

/**
 * The place of an item raised on a plan (docs/design.md §19): hidden fields and a crop of the sheet around the
 * pin. A copy of the form kept for offline use was kept for another tap, so the script fills both from the address.
 */
function placeField(form: FormState, place: NewItemPlace, t: Translate): SafeHtml {
  const x = form.value('plan_x', place.x === null ? '' : String(place.x));
  const y = form.value('plan_y', place.y === null ? '' : String(place.y));
  return html`<fieldset class="place" data-testid="item-place"><legend>${t('place.placeOnPlan')}</legend>
<p>${place.plan.name}</p>
<input type="hidden" name="plan_id" value="${place.plan.id}" data-place-field="plan">
<input type="hidden" name="plan_x" value="${x}" data-place-field="x">
<input type="hidden" name="plan_y" value="${y}" data-place-field="y">
<div class="place-crop" data-place-crop style="--x: ${x || '0.5'}; --y: ${y || '0.5'}" ${x && y ? '' : html`hidden`}><img src="${place.plan.sheet}" alt="${t('place.alt', { plan: place.plan.name })}"></div>
${form.message('plan_x', 'item-place')}</fieldset>`;
}

/** "Add item": a defect raised with its planning, its people and its photos in one step (docs/design.md §14). */
export function newItemView(m: NewItemModel): string {
  const { t } = languageOf(m.session);
  const form = new FormState('item', m.failure, t);
  const p = m.project;
  return page({
    title: `${t('itemForm.add')} · ${p.name}`,
    session: m.session,
    scripts: m.place ? [PLAN_VIEWER_SCRIPT] : [],
    path: '/projects',
    error: m.failure ? html`${t('itemForm.nothingSaved')}` : null,
    body: html`${crumbs(
      [
        { href: '/projects', label: t('nav.projects') },
        { href: `/projects/${p.id}`, label: p.name },
      ],
      t,
    )}
<h1>${t('itemForm.add')}</h1>
${
  m.choices.length === 0
    ? html`<p class="muted">${t('itemForm.noChecklist')} <a href="/projects/${p.id}/structure">${t('itemForm.addStructure')}</a>.</p>`
    : html`<form method="post" action="/projects/${p.id}/items" enctype="multipart/form-data" class="card" id="item" ${m.place ? html`data-place-from-query` : ''}>
${csrfField(m.session)}${writeKeyField()}
${form.summary({
  text: ['item-text', t('itemForm.text')],
  description: ['item-description', t('itemForm.description')],
  checklist: ['item-checklist', t('itemForm.checklist')],
  participants: ['item-participants', t('project.participants')],
  company: ['item-company', t('project.company')],
  priority: ['item-priority', t('project.priority')],
  deadline: ['item-deadline', t('project.deadline')],
  'attachments[]': ['item-photos', t('photos.photos')],
  ...vocabularySummary('item', m.vocabulary, t),
})}
<label for="item-text">${t('itemForm.text')}</label>
<textarea id="item-text" name="text" required maxlength="1000" rows="3" ${form.aria('text', 'item-text')}>${form.value('text')}</textarea>
${form.message('text', 'item-text')}
${m.place ? placeField(form, m.place, t) : ''}
${checklistField(form, 'item-checklist', m.choices, m.checklistId, t)}
${itemVocabularyFields(form, 'item', m.vocabulary, { categoryId: null, fields: {} }, t)}
${participantsField(form, 'item-participants', m.members, [], t)}
${companyField(form, 'item-company', m.companies, null, t)}
<div class="row">
<div><label for="item-priority">${t('project.priority')}</label>
<select id="item-priority" name="priority">${PRIORITIES.map((v) => html`<option value="${v}" ${selected(form.value('priority', 'medium') === v)}>${priorityLabel(t, v)}</option>`)}</select></div>
<div><label for="item-deadline">${t('project.deadline')}</label>
<input id="item-deadline" type="date" name="deadline" value="${form.value('deadline')}" ${form.aria('deadline', 'item-deadline')}>
${form.message('deadline', 'item-deadline')}</div>
</div>
<label class="inline" for="item-requires"><input id="item-requires" type="checkbox" name="requires_answer" value="1" ${checked(form.checked('requires_answer', false))}> ${t('itemForm.answerRequired')}</label>
<p class="hint">${t('itemForm.answerRequiredHint')}</p>
<label for="item-description">${t('itemForm.descriptionOptional')}</label>
<textarea id="item-description" name="description" maxlength="20000" ${form.aria('description', 'item-description')}>${form.value('description')}</textarea>
${form.message('description', 'item-description')}
${photoPicker(
  form,
  'item-photos',
  t('photos.photos'),
  {
    capture: true,
    hint: t('itemForm.photosHint'),
  },
  t,
)}
<div class="preview" data-preview-for="item-photos" aria-live="polite"></div>
<div class="actions"><button type="submit">${t('itemForm.create')}</button><a href="/projects/${p.id}">${t('itemForm.cancel')}</a></div>
</form>`
}`,
  }).value;
}

interface EditItemModel {
  session: WebSession;
  item: {
    id: number;
    text: string;
    description: string;
    checklist_id: number;
    participants: readonly { id: number }[];
    category: string | null;
    fields: Record<string, string>;
    responsible_company: { id: number } | null;
  };
  choices: ChecklistChoice[];
  members: Member[];
  vocabulary: Vocabulary;
  companies: CompanyView[];
  failure: FormFailure | null;
  /** The form's fields, to be wrapped by the page (CSRF, idempotency key). */
  writeForm: (action: string, body: SafeHtml, options: { id: string }) => SafeHtml;
}

/** "Edit item" on the item page: text, description, participants, and a move to another checklist of the project. */
export function editItemForm(m: EditItemModel): SafeHtml {
  const { t } = languageOf(m.session);
  const form = new FormState('edit', m.failure, t);
  return html`<details class="card" ${form.failed ? html`open` : ''} id="edit-item"><summary>${t('itemForm.edit')}</summary>
${m.writeForm(
  `/items/${m.item.id}/edit`,
  html`${form.summary({
    text: ['edit-text', t('itemForm.text')],
    description: ['edit-description', t('itemForm.description')],
    participants: ['edit-participants', t('project.participants')],
    checklist: ['edit-checklist', t('itemForm.checklist')],
    ...vocabularySummary('edit', m.vocabulary, t),
    company: ['edit-company', t('project.company')],
  })}
<label for="edit-text">${t('itemForm.text')}</label>
<textarea id="edit-text" name="text" required maxlength="1000" rows="3" ${form.aria('text', 'edit-text')}>${form.value('text', m.item.text)}</textarea>
${form.message('text', 'edit-text')}
<label for="edit-description">${t('itemForm.description')}</label>
<textarea id="edit-description" name="description" maxlength="20000" ${form.aria('description', 'edit-description')}>${form.value('description', m.item.description)}</textarea>
${form.message('description', 'edit-description')}
${participantsField(
  form,
  'edit-participants',
  m.members,
  m.item.participants.map((p) => p.id),
  t,
)}
<input type="hidden" name="participants_sent" value="1">
${checklistField(form, 'edit-checklist', m.choices, m.item.checklist_id, t)}
${companyField(form, 'edit-company', m.companies, m.item.responsible_company?.id ?? null, t)}
${itemVocabularyFields(
  form,
  'edit',
  m.vocabulary,
  {
    categoryId: m.vocabulary.categories.find((c) => c.name === m.item.category)?.id ?? null,
    fields: m.item.fields,
  },
  t,
)}
<div class="actions"><button type="submit">${t('itemForm.save')}</button></div>`,
  { id: 'edit' },
)}</details>`;
}
