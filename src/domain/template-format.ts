import { PRIORITIES, type Priority } from './values.js';
import { FIELD_KINDS, type FieldKind, fieldOptions, typedValue } from './vocabulary.js';
import { invalidField } from '../i18n/reasons.js';

/**
 * A template's JSON document (docs/design.md §21, docs/cli.md "Templates"): a project's shape without states,
 * people, photos or history. Every key is known (an unknown one refuses the whole document), every reference is by
 * name (an item's category among the template's categories, its fields among the template's fields, each value of
 * its field's kind). Pure: the first problem is thrown as a 422 naming its path.
 */
export interface TemplateField {
  name: string;
  kind: FieldKind;
  options: string[];
  required: boolean;
}

export interface TemplateItem {
  text: string;
  description: string;
  priority: Priority;
  requires_answer: boolean;
  category: string | null;
  fields: Record<string, string>;
}

export interface TemplateChecklist {
  name: string;
  items: TemplateItem[];
}

export interface TemplateSection {
  name: string;
  checklists: TemplateChecklist[];
}

export interface TemplateBody {
  name: string;
  categories: string[];
  fields: TemplateField[];
  sections: TemplateSection[];
}

type Json = Record<string, unknown>;

function objectAt(value: unknown, path: string, keys: readonly string[]): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidField(path || 'template', 'reason.object');
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) throw invalidField(path ? `${path}.${key}` : key, 'reason.notTemplateKey');
  }
  return value as Json;
}

function stringAt(value: unknown, path: string, options: { required?: boolean; empty?: boolean } = {}): string {
  if (value === undefined && !options.required) return '';
  if (typeof value !== 'string') throw invalidField(path, 'reason.string');
  if (!options.empty && value.trim() === '') throw invalidField(path, 'reason.notEmpty');
  return value.trim();
}

function arrayAt(value: unknown, path: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalidField(path, 'reason.list');
  return value;
}

function uniqueName(seen: Set<string>, name: string, path: string) {
  const key = name.toLocaleLowerCase();
  if (seen.has(key)) throw invalidField(path, 'reason.namedTwice', { name });
  seen.add(key);
}

/** A template document checked whole: returns it normalized, or throws the first problem (422, its path). */
export function parseTemplate(input: unknown): TemplateBody {
  const root = objectAt(input, '', ['name', 'categories', 'fields', 'sections']);
  const name = stringAt(root.name, 'name', { required: true });
  const categories: string[] = [];
  const seenCategories = new Set<string>();
  arrayAt(root.categories, 'categories').forEach((c, i) => {
    const category = stringAt(c, `categories[${i}]`, { required: true });
    uniqueName(seenCategories, category, `categories[${i}]`);
    categories.push(category);
  });
  const fields: TemplateField[] = [];
  const seenFields = new Set<string>();
  arrayAt(root.fields, 'fields').forEach((f, i) => {
    const path = `fields[${i}]`;
    const field = objectAt(f, path, ['name', 'kind', 'options', 'required']);
    const fieldName = stringAt(field.name, `${path}.name`, { required: true });
    uniqueName(seenFields, fieldName, `${path}.name`);
    if (!(FIELD_KINDS as readonly unknown[]).includes(field.kind))
      throw invalidField(`${path}.kind`, 'reason.chooseOneOf', { values: FIELD_KINDS.join(', ') });
    const kind = field.kind as FieldKind;
    const options = fieldOptions(
      kind,
      arrayAt(field.options, `${path}.options`).map((o, n) => stringAt(o, `${path}.options[${n}]`)),
      `${path}.options`,
    );
    if (field.required !== undefined && typeof field.required !== 'boolean') throw invalidField(`${path}.required`, 'reason.boolean');
    fields.push({ name: fieldName, kind, options, required: field.required === true });
  });
  const sections = arrayAt(root.sections, 'sections').map((s, si) => {
    const sPath = `sections[${si}]`;
    const section = objectAt(s, sPath, ['name', 'checklists']);
    const checklists = arrayAt(section.checklists, `${sPath}.checklists`).map((c, ci) => {
      const cPath = `${sPath}.checklists[${ci}]`;
      const checklist = objectAt(c, cPath, ['name', 'items']);
      const items = arrayAt(checklist.items, `${cPath}.items`).map((it, ii) => parseItem(it, `${cPath}.items[${ii}]`, categories, fields));
      return { name: stringAt(checklist.name, `${cPath}.name`, { required: true }), items };
    });
    return { name: stringAt(section.name, `${sPath}.name`, { required: true }), checklists };
  });
  return { name, categories, fields, sections };
}

function parseItem(value: unknown, path: string, categories: readonly string[], fields: readonly TemplateField[]): TemplateItem {
  const item = objectAt(value, path, ['text', 'description', 'priority', 'requires_answer', 'category', 'fields']);
  const priority = item.priority ?? 'medium';
  if (!(PRIORITIES as readonly unknown[]).includes(priority))
    throw invalidField(`${path}.priority`, 'reason.chooseOneOf', { values: PRIORITIES.join(', ') });
  if (item.requires_answer !== undefined && typeof item.requires_answer !== 'boolean') {
    throw invalidField(`${path}.requires_answer`, 'reason.boolean');
  }
  const category = item.category === undefined || item.category === null ? null : stringAt(item.category, `${path}.category`);
  if (category !== null && !categories.includes(category))
    throw invalidField(`${path}.category`, 'reason.notTemplateCategory', { category });
  const values: Record<string, string> = {};
  const given =
    item.fields === undefined
      ? {}
      : objectAt(
          item.fields,
          `${path}.fields`,
          fields.map((f) => f.name),
        );
  for (const [fieldName, raw] of Object.entries(given)) {
    const field = fields.find((f) => f.name === fieldName)!;
    const text = stringAt(raw, `${path}.fields.${fieldName}`, { required: true, empty: true });
    typedValue({ id: 0, ...field }, text, `${path}.fields.${fieldName}`);
    if (text !== '') values[fieldName] = text;
  }
  return {
    text: stringAt(item.text, `${path}.text`, { required: true }),
    description: stringAt(item.description, `${path}.description`, { empty: true }),
    priority: priority as Priority,
    requires_answer: item.requires_answer === true,
    category,
    fields: values,
  };
}
