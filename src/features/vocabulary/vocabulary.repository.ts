import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { EscalationLadder } from '../../domain/escalation.js';
import type { FieldKind, FieldRule, TypedValue } from '../../domain/vocabulary.js';

/** A project's category as its pages and items show it. */
export interface CategoryRow {
  id: number;
  name: string;
  position: number;
}

/** A project's custom field; `retired`: hidden from forms, its values kept. */
export interface FieldRow extends FieldRule {
  position: number;
  retired: boolean;
}

/** An item's value of a field, typed, with the field's id. */
export type ValueRow = TypedValue & { item_id: number; field_id: number };

function fieldOf(row: {
  id: number;
  name: string;
  kind: string;
  options: string;
  required: number;
  position: number;
  retired_at: string | null;
}): FieldRow {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as FieldKind,
    options: JSON.parse(row.options) as string[],
    required: row.required === 1,
    position: row.position,
    retired: row.retired_at !== null,
  };
}

const VALUE_COLUMNS = ['item_id', 'field_id', 'text_value', 'number_value', 'date_value', 'option_value'] as const;

/** A project's categories and fields, on `executor`. */
function vocabularyReads(executor: Kysely<Database>) {
  return {
    async categories(projectId: number): Promise<CategoryRow[]> {
      return executor
        .selectFrom('categories')
        .select(['id', 'name', 'position'])
        .where('project_id', '=', projectId)
        .orderBy('position')
        .orderBy('id')
        .execute();
    },

    async fields(projectId: number): Promise<FieldRow[]> {
      const rows = await executor
        .selectFrom('custom_fields')
        .select(['id', 'name', 'kind', 'options', 'required', 'position', 'retired_at'])
        .where('project_id', '=', projectId)
        .orderBy('position')
        .orderBy('id')
        .execute();
      return rows.map(fieldOf);
    },

    findCategory(id: number) {
      return executor.selectFrom('categories').select(['id', 'project_id', 'name']).where('id', '=', id).executeTakeFirst();
    },

    findField(id: number) {
      return executor
        .selectFrom('custom_fields')
        .select(['id', 'project_id', 'name', 'retired_at'])
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** The project's escalation ladder; null: off. */
    async escalation(projectId: number): Promise<EscalationLadder | null> {
      const row = await executor
        .selectFrom('project_escalations')
        .select(['every_days', 'managers_after_days'])
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return row ? { everyDays: row.every_days, managersAfterDays: row.managers_after_days } : null;
    },
  };
}

/** The items' field values, on `executor`. */
function valueReads(executor: Kysely<Database>) {
  return {
    /** The values of these items (any project), for cards, trees, reports and exports. */
    async valuesOf(itemIds: readonly number[]): Promise<ValueRow[]> {
      if (itemIds.length === 0) return [];
      const rows: ValueRow[] = [];
      // Chunks keep the statement under SQLite's and PostgreSQL's parameter limits on a project of many items.
      for (let i = 0; i < itemIds.length; i += 5000) {
        const chunk = itemIds.slice(i, i + 5000);
        rows.push(...(await executor.selectFrom('item_field_values').select(VALUE_COLUMNS).where('item_id', 'in', chunk).execute()));
      }
      return rows;
    },

    /** The project's items holding `option` in a choice field: the filter, served by item_field_values_option_value. */
    async itemsWithOption(fieldId: number, option: string): Promise<number[]> {
      const rows = await executor
        .selectFrom('item_field_values')
        .select('item_id')
        .where('field_id', '=', fieldId)
        .where('option_value', '=', option)
        .execute();
      return rows.map((r) => r.item_id);
    },
  };
}

/** Categories and fields made, renamed and retired, and the ladder set, in a write's transaction. */
function vocabularyWrites(trx: Transaction<Database>) {
  return {
    async nextPosition(table: 'categories' | 'custom_fields', projectId: number): Promise<number> {
      const row = await trx
        .selectFrom(table)
        .select((eb) => eb.fn.max<number | null>('position').as('max'))
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return (row?.max ?? 0) + 1;
    },

    async insertCategory(row: { project_id: number; name: string; position: number; at: string }): Promise<number> {
      const { id } = await trx
        .insertInto('categories')
        .values({ project_id: row.project_id, name: row.name, position: row.position, created_at: row.at, updated_at: row.at })
        .returning('id')
        .executeTakeFirstOrThrow();
      return id;
    },

    async insertField(row: {
      project_id: number;
      name: string;
      kind: FieldKind;
      options: readonly string[];
      required: boolean;
      position: number;
      retired_at?: string | null;
      at: string;
    }): Promise<number> {
      const { id } = await trx
        .insertInto('custom_fields')
        .values({
          project_id: row.project_id,
          name: row.name,
          kind: row.kind,
          options: JSON.stringify(row.options),
          required: row.required ? 1 : 0,
          position: row.position,
          retired_at: row.retired_at ?? null,
          created_at: row.at,
          updated_at: row.at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return id;
    },

    async rename(table: 'categories' | 'custom_fields', id: number, name: string, at: string) {
      await trx.updateTable(table).set({ name, updated_at: at }).where('id', '=', id).execute();
    },

    /** Retires a field (hidden from forms, values kept) or brings it back. */
    async setRetired(id: number, retired: boolean, at: string) {
      await trx
        .updateTable('custom_fields')
        .set({ retired_at: retired ? at : null, updated_at: at })
        .where('id', '=', id)
        .execute();
    },

    /** Sets the project's ladder, or (null) switches it off. */
    async setEscalation(projectId: number, ladder: EscalationLadder | null, at: string) {
      await trx.deleteFrom('project_escalations').where('project_id', '=', projectId).execute();
      if (ladder) {
        await trx
          .insertInto('project_escalations')
          .values({ project_id: projectId, every_days: ladder.everyDays, managers_after_days: ladder.managersAfterDays, updated_at: at })
          .execute();
      }
    },
  };
}

/** An item's category and field values, in a write's transaction. */
function itemVocabularyWrites(trx: Transaction<Database>) {
  return {
    async setCategory(itemId: number, categoryId: number | null) {
      await trx.updateTable('items').set({ category_id: categoryId }).where('id', '=', itemId).execute();
    },

    /** Writes (or, with no value, deletes) one item's value of one field. */
    async setValue(p: { itemId: number; projectId: number; fieldId: number; value: TypedValue | null }) {
      await trx.deleteFrom('item_field_values').where('item_id', '=', p.itemId).where('field_id', '=', p.fieldId).execute();
      if (p.value) {
        await trx
          .insertInto('item_field_values')
          .values({ item_id: p.itemId, field_id: p.fieldId, project_id: p.projectId, ...p.value })
          .execute();
      }
    },

    /** The item's category id. */
    async categoryOf(itemId: number): Promise<number | null> {
      const row = await trx.selectFrom('items').select('category_id').where('id', '=', itemId).executeTakeFirstOrThrow();
      return row.category_id;
    },
  };
}

/** Every read, on `executor`. */
function reads(executor: Kysely<Database>) {
  return { ...vocabularyReads(executor), ...valueReads(executor) };
}

/**
 * The SQL of a project's vocabulary (docs/design.md §21): its categories and fields, and the items' category and
 * typed field values. The statements of `bind` run inside an item or structural write (item-writer.ts).
 */
export function createVocabularyRepository(db: Kysely<Database>) {
  return {
    ...reads(db),

    bind: (trx: Transaction<Database>) => ({ ...reads(trx), ...vocabularyWrites(trx), ...itemVocabularyWrites(trx) }),
  };
}

export type VocabularyRepository = ReturnType<typeof createVocabularyRepository>;
