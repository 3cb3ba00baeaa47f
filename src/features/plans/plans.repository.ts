import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, PlansTable, PlanUploadsTable, PlanVersionsTable } from '../../db/tables.js';

export type PlanRow = Selectable<PlansTable>;
export type PlanVersionRow = Selectable<PlanVersionsTable>;
export type PlanUploadRow = Selectable<PlanUploadsTable>;

/** A new version's row, as the upload made it. */
export type NewPlanVersion = Omit<PlanVersionRow, 'id' | 'plan_id' | 'version' | 'created_at' | 'created_by'>;

/** Plans and their versions, on `executor`. */
function planReads(executor: Kysely<Database>) {
  return {
    findPlan: (planId: number) => executor.selectFrom('plans').selectAll().where('id', '=', planId).executeTakeFirst(),

    plansOf: (projectId: number) =>
      executor.selectFrom('plans').selectAll().where('project_id', '=', projectId).orderBy('position').orderBy('id').execute(),

    /** Every version of the plans given, oldest first. */
    versionsOf: (planIds: readonly number[]) =>
      planIds.length === 0
        ? Promise.resolve([] as PlanVersionRow[])
        : executor
            .selectFrom('plan_versions')
            .selectAll()
            .where('plan_id', 'in', [...planIds])
            .orderBy('plan_id')
            .orderBy('version')
            .execute(),

    findVersion: (planId: number, version: number) =>
      executor.selectFrom('plan_versions').selectAll().where('plan_id', '=', planId).where('version', '=', version).executeTakeFirst(),

    /** The items placed on the project's plans, with what decides who sees them (their section and checklist). */
    placedItems: (projectId: number) =>
      executor
        .selectFrom('items')
        .select(['id', 'plan_id', 'plan_x', 'plan_y', 'status', 'section_id', 'checklist_id', 'responsible_company_id'])
        .where('project_id', '=', projectId)
        .where('plan_id', 'is not', null)
        .orderBy('id')
        .execute(),
  };
}

/** What a plan's page shows besides the plan: its items and the project's members, on `executor`. */
function planPageReads(executor: Kysely<Database>) {
  return {
    /** The items on one plan with their text and participants: the plan's page (pins, filters, "Items on this plan"). */
    async itemsOnPlan(planId: number) {
      const [items, participants] = await Promise.all([
        executor
          .selectFrom('items')
          .select(['id', 'text', 'status', 'plan_x', 'plan_y', 'section_id', 'checklist_id', 'responsible_company_id'])
          .where('plan_id', '=', planId)
          .orderBy('id')
          .execute(),
        executor
          .selectFrom('item_participants')
          .select(['item_id', 'user_id'])
          .where('item_id', 'in', (eb) => eb.selectFrom('items').select('id').where('plan_id', '=', planId))
          .execute(),
      ]);
      return items.map((item) => ({
        ...item,
        participantIds: participants.filter((p) => p.item_id === item.id).map((p) => p.user_id),
      }));
    },

    /** The project's active members, in name order: the plan page's "Participant" filter. */
    projectMembers: (projectId: number) =>
      executor
        .selectFrom('project_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id', 'u.name'])
        .where('m.project_id', '=', projectId)
        .where('u.active', '=', 1)
        .orderBy('u.name')
        .orderBy('u.id')
        .execute(),
  };
}

/** A project's uploads, on `executor`. */
function uploadReads(executor: Kysely<Database>) {
  return {
    /** The project's latest uploads, newest first. */
    uploadsOf: (projectId: number, limit: number) =>
      executor.selectFrom('plan_uploads').selectAll().where('project_id', '=', projectId).orderBy('id', 'desc').limit(limit).execute(),

    findUpload: (uploadId: number) => executor.selectFrom('plan_uploads').selectAll().where('id', '=', uploadId).executeTakeFirst(),
  };
}

/** An upload's progress and failure, written as the rendering goes, outside any write. */
function uploadProgress(db: Kysely<Database>) {
  return {
    /** An upload's pages done (and its heartbeat). */
    async recordProgress(uploadId: number, pagesDone: number, now: string) {
      await db.updateTable('plan_uploads').set({ pages_done: pagesDone, updated_at: now }).where('id', '=', uploadId).execute();
    },

    /** A failed upload: why, for the page that polls it; nothing else of it is kept. */
    async recordFailure(uploadId: number, error: string, now: string) {
      await db.updateTable('plan_uploads').set({ status: 'failed', error, updated_at: now }).where('id', '=', uploadId).execute();
    },
  };
}

/** An upload's row, in a project-level write's transaction. */
function uploadWrites(trx: Transaction<Database>) {
  return {
    async insertUpload(row: Omit<PlanUploadRow, 'id' | 'pages_done' | 'error' | 'plan_ids' | 'status'>): Promise<number> {
      const { id } = await trx
        .insertInto('plan_uploads')
        .values({ ...row, status: 'processing', pages_done: 0, error: null, plan_ids: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      return id;
    },

    async finishUpload(uploadId: number, planIds: readonly number[], now: string) {
      await trx
        .updateTable('plan_uploads')
        .set({ status: 'done', plan_ids: JSON.stringify(planIds), pages_done: (eb) => eb.ref('pages_total'), updated_at: now })
        .where('id', '=', uploadId)
        .execute();
    },
  };
}

/** New plans and versions, in a project-level write's transaction. */
function planWrites(trx: Transaction<Database>) {
  return {
    async nextPosition(projectId: number): Promise<number> {
      const row = await trx
        .selectFrom('plans')
        .select((eb) => eb.fn.max('position').as('max'))
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
    },

    /** A new plan with its first version; returns its id. */
    async insertPlan(p: { projectId: number; name: string; position: number; userId: number; now: string; version: NewPlanVersion }) {
      const { id } = await trx
        .insertInto('plans')
        .values({
          project_id: p.projectId,
          name: p.name,
          current_version: 1,
          position: p.position,
          created_by: p.userId,
          created_at: p.now,
          updated_at: p.now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('plan_versions')
        .values({ ...p.version, plan_id: id, version: 1, created_by: p.userId, created_at: p.now })
        .execute();
      return id;
    },

    /** The plan's next version, which everybody sees from now on; returns its number. */
    async addVersion(p: { planId: number; userId: number; now: string; version: NewPlanVersion }): Promise<number> {
      const plan = await trx.selectFrom('plans').select('current_version').where('id', '=', p.planId).executeTakeFirstOrThrow();
      const last = await trx
        .selectFrom('plan_versions')
        .select((eb) => eb.fn.max('version').as('max'))
        .where('plan_id', '=', p.planId)
        .executeTakeFirst();
      const version = Math.max(plan.current_version, Number(last?.max ?? 0)) + 1;
      await trx
        .insertInto('plan_versions')
        .values({ ...p.version, plan_id: p.planId, version, created_by: p.userId, created_at: p.now })
        .execute();
      await trx.updateTable('plans').set({ current_version: version, updated_at: p.now }).where('id', '=', p.planId).execute();
      return version;
    },
  };
}

/** Every read, on `executor`. */
function reads(executor: Kysely<Database>) {
  return { ...planReads(executor), ...planPageReads(executor), ...uploadReads(executor) };
}

/** The SQL of plans (docs/design.md §19): plans, their versions, the pins of a project, the uploads while they render. */
export function createPlansRepository(db: Kysely<Database>) {
  return {
    ...reads(db),
    ...uploadProgress(db),

    /** The statements of a project-level write (item-writer.ts writeProject), bound to its transaction. */
    bind: (trx: Transaction<Database>) => ({ ...reads(trx), ...uploadWrites(trx), ...planWrites(trx) }),
  };
}

export type PlansRepository = ReturnType<typeof createPlansRepository>;
