import { Type } from 'typebox';
import { Text } from '../../http/write-inputs.js';
import { invalidField } from '../../i18n/reasons.js';
import { companyOf, fractionOf, idsOf, parseFields, parseId, sentField, textField, vocabularyOf } from '../form.js';

/**
 * The structure page's forms and "Add item", each parsed once (web/form.ts `parseFields`) with its own schema: none
 * has a v1 twin. The schema holds the fields' shapes; a choice among the project's rows (a section, a template's
 * checklist) is refused here with its reason, and the services check the rest (names, kinds, days, dates).
 */

/** The forms that name something (a section, checklist, category, template): the name, as text. */
const NameForm = Type.Object({ name: Text });
const MoveForm = Type.Object({ direction: Text });
const NewChecklistForm = Type.Object({ name: Text, section: Text });
const FromTemplateForm = Type.Object({ template: Text, section: Text });
const NewFieldForm = Type.Object({ name: Text, kind: Text, options: Text, required: Type.Boolean() });
const RetireForm = Type.Object({ retired: Type.Boolean() });
const EscalationForm = Type.Object({ enabled: Type.Boolean(), every_days: Text, managers_after_days: Text });
const NewItemForm = Type.Object({
  checklist: Text,
  text: Text,
  description: Text,
  priority: Type.Optional(Text),
  deadline: Text,
  requires_answer: Type.Boolean(),
  plan_id: Type.Optional(Text),
  plan_x: Type.Optional(Text),
  plan_y: Type.Optional(Text),
});
const NewItemPhotosForm = Type.Object({ stage: Type.Optional(Text), caption: Type.Optional(Text) });

export const nameOf = (form: URLSearchParams) => parseFields(NameForm, { name: textField(form, 'name') }).name;

/** "Up" or "down" of a section or checklist (the service refuses anything else). */
export const directionOf = (form: URLSearchParams) => parseFields(MoveForm, { direction: textField(form, 'direction') }).direction;

export function newChecklistOf(form: URLSearchParams) {
  const fields = parseFields(NewChecklistForm, { name: textField(form, 'name'), section: textField(form, 'section') });
  const sectionId = parseId(fields.section);
  if (sectionId === null) throw invalidField('section', 'reason.chooseSection');
  return { name: fields.name, sectionId };
}

/** "Add from template": the select's `template:checklist` pair and the section it goes to. */
export function templateChecklistOf(form: URLSearchParams) {
  const fields = parseFields(FromTemplateForm, { template: textField(form, 'template'), section: textField(form, 'section') });
  const [template, checklist] = fields.template.split(':');
  const templateId = parseId(template);
  if (templateId === null || !/^\d{1,6}$/.test(checklist ?? '')) throw invalidField('template', 'reason.chooseTemplate');
  const sectionId = parseId(fields.section);
  if (sectionId === null) throw invalidField('section', 'reason.chooseProjectSection');
  return { templateId, checklist: Number(checklist), sectionId };
}

/** A new custom field: its name, kind, options (one per line) and the "Required" box. */
export const newFieldOf = (form: URLSearchParams) =>
  parseFields(NewFieldForm, {
    name: textField(form, 'name'),
    kind: textField(form, 'kind'),
    options: textField(form, 'options'),
    required: form.has('required'),
  });

/** "Retire" sends `retired=1`, "Bring back" `retired=0`. */
export const retiredOf = (form: URLSearchParams) => parseFields(RetireForm, { retired: form.get('retired') !== '0' }).retired;

/** The escalation ladder: on with its days (checked by the service), or off (null) when the box is unticked. */
export function escalationOf(form: URLSearchParams) {
  const fields = parseFields(EscalationForm, {
    enabled: form.has('enabled'),
    every_days: textField(form, 'every_days'),
    managers_after_days: textField(form, 'managers_after_days'),
  });
  return fields.enabled ? { everyDays: fields.every_days, managersAfterDays: fields.managers_after_days } : null;
}

/**
 * The "Add item" form's fields as the service takes them, its checklist first (its photos are prepared by the page,
 * with `newItemPhotosOf`): a place on a plan only when the form came from one (`plan_id`).
 */
export function newItemOf(form: URLSearchParams) {
  const fields = parseFields(NewItemForm, {
    checklist: textField(form, 'checklist'),
    text: textField(form, 'text'),
    description: textField(form, 'description'),
    priority: sentField(form, 'priority'),
    deadline: textField(form, 'deadline'),
    requires_answer: form.has('requires_answer'),
    plan_id: sentField(form, 'plan_id'),
    plan_x: sentField(form, 'plan_x'),
    plan_y: sentField(form, 'plan_y'),
  });
  const checklistId = parseId(fields.checklist);
  if (checklistId === null) throw invalidField('checklist', 'reason.chooseChecklist');
  return {
    checklistId,
    input: {
      text: fields.text,
      description: fields.description,
      participantIds: idsOf(form, 'participants'),
      companyId: companyOf(form) ?? null,
      priority: fields.priority,
      deadline: fields.deadline,
      requires_answer: fields.requires_answer,
      location: fields.plan_id
        ? { planId: parseId(fields.plan_id) ?? 0, x: fractionOf(fields.plan_x), y: fractionOf(fields.plan_y) }
        : null,
      vocabulary: vocabularyOf(form),
      fromForm: true,
    },
  };
}

/** The stage and caption given to the photos sent with a new item (absent: the defaults of `photoDetailsOf`). */
export const newItemPhotosOf = (form: URLSearchParams) =>
  parseFields(NewItemPhotosForm, { stage: sentField(form, 'stage'), caption: sentField(form, 'caption') });
