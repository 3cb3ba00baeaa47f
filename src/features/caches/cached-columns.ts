import type { Database } from '../../db/tables.js';

/*
 * What the cached reads show, declared once (docs/db-plumbing.md, "Cached columns"). A cached card or tree is
 * served while its version (cache-versions.repository.ts) is unchanged, and a version moves only when a trigger
 * bumps it: a column a read shows, filters or orders by, that no trigger watches, would leave the cache stale
 * without a sound. So every table and column the SQL of a cached read touches is listed here, and two tests hold
 * the list to the truth (cached-columns.test.ts, on both dialects):
 *
 * - the SQL the card and the tree run touches exactly these columns (a column read but not declared fails,
 *   naming it; so does one declared but no longer read);
 * - an UPDATE of each declared column alone, by hand, moves the read's version (a column no trigger watches
 *   fails, naming it: add the trigger in your migration).
 *
 * `'*'`: every column of the table, today's and any added later (the read selects the whole row; its trigger
 * must then fire on any UPDATE of the table).
 */

type Columns<T> = '*' | readonly (keyof T & string)[];

/** A cached read's tables, each with the columns its SQL touches. */
export type CachedRead = { readonly [T in keyof Database]?: Columns<Database[T]> };

/** The fields of an item the tree lists (a line per item: projects.repository.ts `itemsOf` selects them). */
export const TREE_ITEM_FIELDS = [
  'id',
  'checklist_id',
  'text',
  'status',
  'priority',
  'deadline',
  'requires_answer',
  'plan_id',
  'plan_x',
  'plan_y',
  'category_id',
  // Whose move it is (docs/design.md §20): the verdict and a dispute decide it with the status.
  'verdict',
  'dispute_at',
] as const satisfies readonly (keyof Database['items'])[];

/** The fields of the sections and checklists of a tree (projects.repository.ts `structure` selects them). */
export const TREE_SECTION_FIELDS = ['id', 'project_id', 'name', 'position'] as const satisfies readonly (keyof Database['sections'])[];
export const TREE_CHECKLIST_FIELDS = [
  'id',
  'project_id',
  'section_id',
  'name',
  'position',
] as const satisfies readonly (keyof Database['checklists'])[];

/** The access check's reads (the actor's membership), in both reads: a changed access changes the answer. */
const MEMBERSHIP = ['project_id', 'user_id', 'role', 'section_ids', 'checklist_ids', 'company_items_only'] as const;

/** A custom field as an item shows it (its name, in the fields' order), and a value in each of its typed columns. */
const VOCABULARY_FIELDS = ['id', 'name', 'position'] as const;
const FIELD_VALUES = ['text_value', 'number_value', 'date_value', 'option_value'] as const;

export const CACHED_READS = {
  /** items/get (v1), valid while cache-versions `card` (the item, its project, the users' names) is. */
  card: {
    // The access check and the card select the whole item and project rows.
    items: '*',
    projects: '*',
    project_members: MEMBERSHIP,
    item_participants: ['item_id', 'user_id'],
    // The reader's company decides what a member limited to it sees (docs/design.md §20).
    users: ['id', 'name', 'company_id'],
    companies: ['id', 'name'],
    comments: ['id', 'item_id', 'author_id', 'text', 'created_at'],
    answers: ['id', 'item_id', 'author_id', 'text', 'status', 'created_at', 'updated_at'],
    document_links: ['id', 'item_id', 'answer_id', 'kind', 'title', 'url', 'position'],
    attachments: [
      'id',
      'item_id',
      'answer_id',
      'original_name',
      'mime_type',
      'path',
      'size',
      'width',
      'height',
      'created_at',
      // Photos that show the defect (migration 022): a markup's original, the stage, the caption, who added it.
      'annotates',
      'stage',
      'caption',
      'uploaded_by',
    ],
    item_history: ['id', 'item_id', 'kind', 'from_status', 'to_status', 'at', 'note', 'user_id'],
    plans: ['id', 'name'],
    // The project's own vocabulary (docs/design.md §21): the item's category and its fields' values by name.
    categories: ['id', 'name'],
    custom_fields: VOCABULARY_FIELDS,
    item_field_values: ['item_id', 'field_id', ...FIELD_VALUES],
  },
  /** projects/tree (v1), valid while cache-versions `tree` (the project, its items' summaries) is. */
  tree: {
    projects: '*',
    project_members: MEMBERSHIP,
    sections: TREE_SECTION_FIELDS,
    checklists: TREE_CHECKLIST_FIELDS,
    // The listed fields, and what the tree filters (project), counts by (section) and orders by (position).
    items: [...TREE_ITEM_FIELDS, 'project_id', 'section_id', 'position', 'responsible_company_id'],
    plans: ['id', 'name'],
    // Whose move it is (docs/design.md §20): an answer waiting for review; the company holding the item; the
    // reader's company (a member limited to it).
    answers: ['id', 'item_id', 'status'],
    companies: ['id', 'name'],
    users: ['id', 'company_id'],
    categories: ['id', 'name'],
    custom_fields: VOCABULARY_FIELDS,
    item_field_values: ['item_id', 'field_id', 'project_id', ...FIELD_VALUES],
  },
} as const satisfies Record<string, CachedRead>;

export type CachedReadName = keyof typeof CACHED_READS;

/**
 * The v1 operations with a `cache` (api/v1/operations.ts), each with the read above that it is: a new cached
 * operation fails cached-columns.test.ts until its read is declared here.
 */
export const CACHED_OPERATIONS = { getItem: 'card', getProjectTree: 'tree' } as const satisfies Record<string, CachedReadName>;

/** `i.text`, … : declared fields as a query with the table under `alias` selects them. */
export function qualified<A extends string, C extends string>(alias: A, columns: readonly C[]): `${A}.${C}`[] {
  return columns.map((c) => `${alias}.${c}` as const);
}
