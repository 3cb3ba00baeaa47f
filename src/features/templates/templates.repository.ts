import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';

/** A template as listed (its name and what it holds) and as stored (`body`: its JSON document). */
export interface TemplateRow {
  id: number;
  name: string;
  body: string;
  created_at: string;
}

/**
 * The SQL of templates (docs/design.md §21): the saved documents, and the project reads that "Save as template"
 * makes (its items with their planning and category; values through the vocabulary repository).
 */
export function createTemplatesRepository(db: Kysely<Database>) {
  const reads = (executor: Kysely<Database>) => ({
    list: () => executor.selectFrom('templates').select(['id', 'name', 'body', 'created_at']).orderBy('name').orderBy('id').execute(),
    find: (id: number) =>
      executor.selectFrom('templates').select(['id', 'name', 'body', 'created_at']).where('id', '=', id).executeTakeFirst(),
    findByName: (name: string) =>
      executor.selectFrom('templates').select(['id', 'name', 'body', 'created_at']).where('name', '=', name).executeTakeFirst(),

    /** The project's items in their order, with what a template keeps of them. */
    itemsOfProject: (projectId: number) =>
      executor
        .selectFrom('items as i')
        .leftJoin('categories as c', 'c.id', 'i.category_id')
        .select(['i.id', 'i.checklist_id', 'i.text', 'i.description', 'i.priority', 'i.requires_answer', 'c.name as category'])
        .where('i.project_id', '=', projectId)
        .orderBy('i.position')
        .orderBy('i.id')
        .execute(),
  });

  return {
    ...reads(db),
    bind: (trx: Transaction<Database>) => ({
      ...reads(trx),
      async insert(row: { name: string; body: string; created_by: number | null; at: string }): Promise<number> {
        const { id } = await trx
          .insertInto('templates')
          .values({ name: row.name, body: row.body, created_by: row.created_by, created_at: row.at, updated_at: row.at })
          .returning('id')
          .executeTakeFirstOrThrow();
        return id;
      },
    }),
  };
}

export type TemplatesRepository = ReturnType<typeof createTemplatesRepository>;
