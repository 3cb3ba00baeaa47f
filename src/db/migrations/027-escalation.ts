import type { Kysely } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * The escalation ladder of a project (docs/design.md §21, issue 43 part 3):
 *
 * - `project_escalations`: a project's ladder, one row when it is on (no row: off, the default): reminders every
 *   `every_days` days while an item stays overdue, and from day `managers_after_days` to the managers as well.
 * - `escalation_steps`: each step told, once per item, deadline, step (the day of being overdue it falls on) and
 *   person; the primary key is what makes a step once, whichever node and however often the pass runs. The
 *   deadline is part of it: a deadline moved starts a new ladder.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('project_escalations')
    .addColumn('project_id', 'bigint', (c) => c.primaryKey())
    .addColumn('every_days', 'integer', (c) => c.notNull())
    .addColumn('managers_after_days', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('escalation_steps')
    .addColumn('item_id', 'bigint', (c) => c.notNull())
    .addColumn('deadline', 'text', (c) => c.notNull())
    .addColumn('step', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('project_id', 'bigint', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('escalation_steps_pk', ['item_id', 'deadline', 'step', 'user_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('escalation_steps').execute();
  await db.schema.dropTable('project_escalations').execute();
}
