import type { Kysely } from 'kysely';
import type { Database } from './tables.js';

/** The tables whose rows are ordered by `position` inside their parent, and the parent's column. */
const ORDERED = {
  sections: 'project_id',
  checklists: 'section_id',
  items: 'checklist_id',
} as const;
export type OrderedTable = keyof typeof ORDERED;

/** The position after the last child of `parentId`. */
export async function nextPosition(trx: Kysely<Database>, table: OrderedTable, parentId: number): Promise<number> {
  const row = await trx
    .selectFrom(table as 'sections')
    .select((eb) => eb.fn.max('position').as('max'))
    .where(ORDERED[table] as 'project_id', '=', parentId)
    .executeTakeFirst();
  return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
}

/**
 * Swaps a row with its neighbour (`offset` -1: the one before, 1: the one after), then numbers the siblings
 * 0..n-1. Moving past an end changes nothing. Returns the row's position before and after.
 */
export async function moveAmongSiblings(trx: Kysely<Database>, table: OrderedTable, id: number, offset: -1 | 1, at: string) {
  const parentColumn = ORDERED[table] as 'project_id';
  const self = await trx
    .selectFrom(table as 'sections')
    .select(parentColumn)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const siblings = await trx
    .selectFrom(table as 'sections')
    .select(['id', 'position'])
    .where(parentColumn, '=', self[parentColumn])
    .orderBy('position')
    .orderBy('id')
    .execute();
  const index = siblings.findIndex((s) => s.id === id);
  const other = index + offset;
  if (other < 0 || other >= siblings.length) return { from: index, to: index };
  [siblings[index], siblings[other]] = [siblings[other]!, siblings[index]!];
  for (const [position, sibling] of siblings.entries()) {
    if (sibling.position === position) continue;
    await trx
      .updateTable(table as 'sections')
      .set({ position, updated_at: at })
      .where('id', '=', sibling.id)
      .execute();
  }
  return { from: index, to: other };
}
