import { assertRequired, fieldKey, NO_VALUE, type TypedValue, typedValue, valueText } from '../../domain/vocabulary.js';
import { invalidField } from '../../i18n/reasons.js';
import type { WriteRepositories } from './write-repositories.js';

/** An item's category and values asked for: `categoryId` undefined leaves it, null clears it; `values` by field id. */
export interface ItemVocabularyInput {
  categoryId?: number | null;
  values?: ReadonlyMap<number, string>;
}

/** What an item write changed of its vocabulary, for `item.updated` (names, as the card shows them). */
export interface VocabularyChanges {
  category?: { from: string | null; to: string | null };
  fields?: Record<string, { from: string | null; to: string | null }>;
}

/**
 * The item step of a write (create or edit), inside the item's transaction: checks the category (one of the
 * project's, else 422 `category`) and every value given against its field (wrong kind → 422 beside it; a
 * required field left empty → 422, on create and when cleared), then writes what differs. A retired field's
 * value is never touched by a form. Returns the changes (empty when none).
 */
export async function applyItemVocabulary(
  repos: WriteRepositories,
  p: { projectId: number; itemId: number; input: ItemVocabularyInput; creating: boolean },
): Promise<VocabularyChanges> {
  const { vocabulary } = repos;
  const changes: VocabularyChanges = {};
  const { categoryId, values } = p.input;
  if (categoryId !== undefined) {
    const current = await vocabulary.categoryOf(p.itemId);
    if (categoryId !== current) {
      const categories = await vocabulary.categories(p.projectId);
      const name = (id: number | null) => (id === null ? null : (categories.find((c) => c.id === id)?.name ?? null));
      if (categoryId !== null && name(categoryId) === null) throw invalidField('category', 'reason.chooseProjectCategory');
      await vocabulary.setCategory(p.itemId, categoryId);
      changes.category = { from: name(current), to: name(categoryId) };
    }
  }
  const fields = (await vocabulary.fields(p.projectId)).filter((f) => !f.retired);
  if (!values && !p.creating) return changes;
  const before = new Map((await vocabulary.valuesOf([p.itemId])).map((v) => [v.field_id, valueText(v)]));
  const typed = new Map<number, TypedValue>();
  for (const field of fields) {
    const raw = values?.get(field.id);
    if (raw === undefined) {
      if (p.creating) assertRequired(field, NO_VALUE);
      continue;
    }
    const value = typedValue(field, raw);
    assertRequired(field, value);
    typed.set(field.id, value);
  }
  for (const id of values?.keys() ?? []) {
    if (!fields.some((f) => f.id === id)) throw invalidField(fieldKey(id), 'reason.notProjectField');
  }
  for (const field of fields) {
    const value = typed.get(field.id);
    if (!value) continue;
    const from = before.get(field.id) ?? null;
    const to = valueText(value);
    if (from === to) continue;
    await vocabulary.setValue({ itemId: p.itemId, projectId: p.projectId, fieldId: field.id, value: to === null ? null : value });
    (changes.fields ??= {})[field.name] = { from, to };
  }
  return changes;
}
