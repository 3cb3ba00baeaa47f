import { DEFAULT_LADDER, type EscalationLadder, MAX_EVERY_DAYS, MAX_MANAGERS_AFTER_DAYS } from '../../domain/escalation.js';
import { FIELD_KINDS, fieldKey, type FieldKind } from '../../domain/vocabulary.js';
import type { Vocabulary } from '../../features/vocabulary/vocabulary.service.js';
import type { Translate } from '../../i18n/i18n.js';
import { html, type SafeHtml } from '../html.js';
import type { FormFailure } from '../web-write.js';
import { FormState, selected } from './forms.js';

type WriteForm = (action: string, body: SafeHtml, options?: { id?: string; className?: string }) => SafeHtml;

/** A name's rename form (a section's, checklist's, category's, field's): its input and a "Rename" button. */
export function renameRow(
  context: { failure: FormFailure | null; writeForm: WriteForm; maxLength?: number; t: Translate },
  form: string,
  action: string,
  label: string,
  value: string,
) {
  const { failure, writeForm, maxLength = 100, t } = context;
  const state = new FormState(form, failure, t);
  const id = `${form}-name`;
  return writeForm(
    action,
    html`${state.summary({ name: [id, label] })}<label for="${id}">${label}</label>
<div class="inline-field"><input id="${id}" type="text" name="name" required maxlength="${maxLength}" value="${state.value('name', value)}" ${state.aria('name', id)}>
<button type="submit" class="secondary small">${t('structure.rename')}</button></div>
${state.message('name', id)}`,
    { id: form },
  );
}

/**
 * The project's categories and custom fields on the structure page (docs/design.md §21): "Category name" + "Add
 * category"; "Field name", "Field kind", "Options" (one per line), "Required" + "Add field"; each one renamed, a
 * field retired (its values kept) or brought back.
 */
export function vocabularySections(m: {
  projectId: number;
  vocabulary: Vocabulary;
  failure: FormFailure | null;
  writeForm: WriteForm;
  t: Translate;
}) {
  const { projectId, vocabulary, failure, writeForm, t } = m;
  const category = new FormState('new-category', failure, t);
  const field = new FormState('new-field', failure, t);
  const kind = field.value('kind', 'text');
  return html`<div class="card-grid">
<section class="card" aria-labelledby="categories-title" id="categories">
<h2 id="categories-title">${t('structure.categories')}</h2>
<p class="hint">${t('structure.categoriesHint')}</p>
${
  vocabulary.categories.length
    ? html`<ul class="structure">${vocabulary.categories.map(
        (c) =>
          html`<li id="category-${c.id}">${renameRow(m, `category-${c.id}`, `/categories/${c.id}/rename`, t('structure.renameCategory', { name: c.name }), c.name)}</li>`,
      )}</ul>`
    : html`<p class="muted">${t('structure.noCategories')}</p>`
}
${writeForm(
  `/projects/${projectId}/categories`,
  html`${category.summary({ name: ['new-category-name', t('structure.categoryName')] })}<label for="new-category-name">${t('structure.categoryName')}</label>
<input id="new-category-name" type="text" name="name" required maxlength="100" value="${category.value('name')}" ${category.aria('name', 'new-category-name')}>
${category.message('name', 'new-category-name')}
<div class="actions"><button type="submit">${t('structure.addCategory')}</button></div>`,
  { id: 'new-category' },
)}
</section>
<section class="card" aria-labelledby="fields-title" id="fields">
<h2 id="fields-title">${t('structure.fields')}</h2>
<p class="hint">${t('structure.fieldsHint')}</p>
${
  vocabulary.fields.length
    ? html`<ul class="structure">${vocabulary.fields.map(
        (
          f,
        ) => html`<li id="field-${f.id}"><p><strong>${f.name}</strong> <span class="muted">(${t(`structure.kind.${f.kind}`)}${f.required ? t('structure.fieldRequired') : ''}${
          f.kind === 'choice' ? html`: ${f.options.join(', ')}` : ''
        }${f.retired ? t('structure.fieldRetired') : ''})</span></p>
${renameRow(m, `field-${f.id}`, `/fields/${f.id}/rename`, t('structure.renameField', { name: f.name }), f.name)}
${writeForm(
  `/fields/${f.id}/retire`,
  html`<input type="hidden" name="retired" value="${f.retired ? '0' : '1'}"><button type="submit" class="secondary small">${
    f.retired ? t('structure.bringBack', { name: f.name }) : t('structure.retire', { name: f.name })
  }</button>`,
  { className: 'inline' },
)}</li>`,
      )}</ul>`
    : html`<p class="muted">${t('structure.noFields')}</p>`
}
${writeForm(
  `/projects/${projectId}/fields`,
  html`${field.summary({
    name: ['new-field-name', t('structure.fieldName')],
    kind: ['new-field-kind', t('structure.fieldKind')],
    options: ['new-field-options', t('structure.options')],
  })}<label for="new-field-name">${t('structure.fieldName')}</label>
<input id="new-field-name" type="text" name="name" required maxlength="100" value="${field.value('name')}" ${field.aria('name', 'new-field-name')}>
${field.message('name', 'new-field-name')}
<label for="new-field-kind">${t('structure.fieldKind')}</label>
<select id="new-field-kind" name="kind" ${field.aria('kind', 'new-field-kind')}>${FIELD_KINDS.map(
    (k) => html`<option value="${k}" ${selected(kind === k)}>${t(`structure.kind.${k}`)}</option>`,
  )}</select>
${field.message('kind', 'new-field-kind')}
<label for="new-field-options">${t('structure.options')}</label>
<textarea id="new-field-options" name="options" rows="3" aria-describedby="new-field-options-hint" ${field.aria('options', 'new-field-options')}>${field.value('options')}</textarea>
<p class="hint" id="new-field-options-hint">${t('structure.optionsHint')}</p>
${field.message('options', 'new-field-options')}
<label class="inline" for="new-field-required"><input id="new-field-required" type="checkbox" name="required" value="1" ${
    field.checked('required', false) ? html`checked` : ''
  }> ${t('structure.required')}</label>
<div class="actions"><button type="submit">${t('structure.addField')}</button></div>`,
  { id: 'new-field' },
)}
</section>
</div>`;
}

/**
 * The structure page's "Escalation" block (docs/design.md §21): the project's ladder, off by default; on, an
 * overdue item's participants are reminded every N days and the managers told from day M.
 */
export function escalationSection(m: {
  projectId: number;
  escalation: EscalationLadder | null;
  failure: FormFailure | null;
  writeForm: WriteForm;
  t: Translate;
}) {
  const { projectId, escalation, failure, writeForm, t } = m;
  const form = new FormState('escalation-form', failure);
  const ladder = escalation ?? DEFAULT_LADDER;
  const every = t('vocab.escalation.everyDays');
  const after = t('vocab.escalation.managersAfterDays');
  return html`<section class="card" aria-labelledby="escalation-title" id="escalation">
<h2 id="escalation-title">${t('vocab.escalation.title')}</h2>
<p class="hint">${t('vocab.escalation.hint')}</p>
<p data-testid="escalation-state"><strong>${
    escalation ? t('vocab.escalation.on', { every: escalation.everyDays, after: escalation.managersAfterDays }) : t('vocab.escalation.off')
  }</strong></p>
${writeForm(
  `/projects/${projectId}/escalation`,
  html`${form.summary({ every_days: ['escalation-every', every], managers_after_days: ['escalation-managers', after] })}
<label class="inline" for="escalation-enabled"><input id="escalation-enabled" type="checkbox" name="enabled" value="1" ${
    form.checked('enabled', escalation !== null) ? html`checked` : ''
  }> ${t('vocab.escalation.enabled')}</label>
<div class="row"><div><label for="escalation-every">${every}</label>
<input id="escalation-every" type="number" inputmode="numeric" name="every_days" min="1" max="${MAX_EVERY_DAYS}" step="1" value="${form.value(
    'every_days',
    String(ladder.everyDays),
  )}" ${form.aria('every_days', 'escalation-every')}>
${form.message('every_days', 'escalation-every')}</div>
<div><label for="escalation-managers">${after}</label>
<input id="escalation-managers" type="number" inputmode="numeric" name="managers_after_days" min="1" max="${MAX_MANAGERS_AFTER_DAYS}" step="1" value="${form.value(
    'managers_after_days',
    String(ladder.managersAfterDays),
  )}" ${form.aria('managers_after_days', 'escalation-managers')}>
${form.message('managers_after_days', 'escalation-managers')}</div></div>
<div class="actions"><button type="submit">${t('vocab.escalation.save')}</button></div>`,
  { id: 'escalation-form' },
)}
</section>`;
}

/** The control of one field in the item forms, labelled with the field's name; its key is `field_<id>`. */
function fieldControl(
  form: FormState,
  prefix: string,
  f: { id: number; name: string; kind: FieldKind; options: readonly string[]; required: boolean },
  current: string,
  t: Translate,
) {
  const key = fieldKey(f.id);
  const id = `${prefix}-${key}`;
  const value = form.value(key, current);
  const required = f.required ? html`required` : '';
  const label = html`<label for="${id}">${f.required ? f.name : t('structure.fieldOptional', { name: f.name })}</label>`;
  let control: SafeHtml;
  if (f.kind === 'choice') {
    control = html`<select id="${id}" name="${key}" ${required} ${form.aria(key, id)}><option value="">—</option>${f.options.map(
      (o) => html`<option value="${o}" ${selected(value === o)}>${o}</option>`,
    )}</select>`;
  } else if (f.kind === 'date') {
    control = html`<input id="${id}" type="date" name="${key}" value="${value}" ${required} ${form.aria(key, id)}>`;
  } else if (f.kind === 'number') {
    control = html`<input id="${id}" type="text" inputmode="decimal" name="${key}" value="${value}" ${required} ${form.aria(key, id)}>`;
  } else {
    control = html`<input id="${id}" type="text" name="${key}" maxlength="1000" value="${value}" ${required} ${form.aria(key, id)}>`;
  }
  return html`<div>${label}
${control}
${form.message(key, id)}</div>`;
}

/**
 * The item forms' "Category" select and one control per active field (docs/design.md §21); `current` holds the
 * item's category id and values by field name (empty on "Add item").
 */
export function itemVocabularyFields(
  form: FormState,
  prefix: string,
  vocabulary: Vocabulary,
  current: { categoryId: number | null; fields: Record<string, string> },
  t: Translate,
): SafeHtml {
  const active = vocabulary.fields.filter((f) => !f.retired);
  if (vocabulary.categories.length === 0 && active.length === 0) return html``;
  const chosen = form.value('category', current.categoryId === null ? '' : String(current.categoryId));
  const id = `${prefix}-category`;
  return html`<input type="hidden" name="vocabulary_sent" value="1">
${
  vocabulary.categories.length
    ? html`<label for="${id}">${t('structure.category')}</label>
<select id="${id}" name="category" ${form.aria('category', id)}><option value="">${t('structure.noCategory')}</option>${vocabulary.categories.map(
        (c) => html`<option value="${c.id}" ${selected(chosen === String(c.id))}>${c.name}</option>`,
      )}</select>
${form.message('category', id)}`
    : ''
}
${active.length ? html`<div class="row">${active.map((f) => fieldControl(form, prefix, f, current.fields[f.name] ?? '', t))}</div>` : ''}`;
}

/** The summary entries of the vocabulary controls, for the form's error summary. */
export function vocabularySummary(prefix: string, vocabulary: Vocabulary, t: Translate): Record<string, readonly [string, string]> {
  const entries: Record<string, readonly [string, string]> = { category: [`${prefix}-category`, t('structure.category')] };
  for (const f of vocabulary.fields) entries[fieldKey(f.id)] = [`${prefix}-${fieldKey(f.id)}`, f.name];
  return entries;
}
