import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/tables.js';
import type { Actor } from '../../domain/policy.js';
import { MEMBER_ROLES, type MemberRole } from '../../domain/values.js';
import { notFound, validationError } from '../../errors.js';
import { assertAdmin } from './admin-guard.js';

export interface MemberInput {
  userId: number;
  role: string;
  /** false: the whole project. true: only the union of `sectionIds` and `checklistIds` (partial access). */
  limited: boolean;
  sectionIds: number[];
  checklistIds: number[];
}

const idList = (value: string | null): number[] | null => (value === null ? null : (JSON.parse(value) as number[]));

/** Project memberships (role, and optionally partial access to sections and checklists), for administrators. */
export function createMembersService(deps: { db: Kysely<Database>; clock: Clock }) {
  const { db, clock } = deps;

  async function projectExists(projectId: number) {
    const project = await db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst();
    if (!project) throw notFound('The project');
  }

  return {
    async listMembers(actor: Actor, projectId: number) {
      assertAdmin(actor);
      await projectExists(projectId);
      const rows = await db
        .selectFrom('project_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id as user_id', 'u.name', 'u.email', 'u.active', 'm.role', 'm.section_ids', 'm.checklist_ids'])
        .where('m.project_id', '=', projectId)
        .orderBy('u.name')
        .execute();
      return rows.map((r) => ({ ...r, section_ids: idList(r.section_ids), checklist_ids: idList(r.checklist_ids) }));
    },

    /** Adds a member or changes an existing membership. Limited access needs at least one section or checklist. */
    async setMember(actor: Actor, projectId: number, input: MemberInput) {
      assertAdmin(actor);
      await projectExists(projectId);
      if (!(MEMBER_ROLES as readonly string[]).includes(input.role)) {
        throw validationError('role', `must be one of ${MEMBER_ROLES.join(', ')}`);
      }
      const user = await db.selectFrom('users').select('id').where('id', '=', input.userId).executeTakeFirst();
      if (!user) throw validationError('user', 'is not a user');
      const sectionIds = [...new Set(input.sectionIds)].sort((a, b) => a - b);
      const checklistIds = [...new Set(input.checklistIds)].sort((a, b) => a - b);
      if (input.limited) {
        if (!sectionIds.length && !checklistIds.length) {
          throw validationError('access', 'choose at least one section or checklist, or give access to the whole project');
        }
        const [sections, checklists] = await Promise.all([
          sectionIds.length
            ? db.selectFrom('sections').select('id').where('project_id', '=', projectId).where('id', 'in', sectionIds).execute()
            : [],
          checklistIds.length
            ? db.selectFrom('checklists').select('id').where('project_id', '=', projectId).where('id', 'in', checklistIds).execute()
            : [],
        ]);
        if (sections.length !== sectionIds.length) throw validationError('sections', 'must be sections of this project');
        if (checklists.length !== checklistIds.length) throw validationError('checklists', 'must be checklists of this project');
      }
      const values = {
        role: input.role as MemberRole,
        section_ids: input.limited ? JSON.stringify(sectionIds) : null,
        checklist_ids: input.limited ? JSON.stringify(checklistIds) : null,
      };
      await db
        .insertInto('project_members')
        .values({ project_id: projectId, user_id: input.userId, ...values, created_at: clock.now().toISOString() })
        .onConflict((oc) => oc.columns(['project_id', 'user_id']).doUpdateSet(values))
        .execute();
    },

    /** Ends a membership; the user stops being a participant of the project's items. */
    async removeMember(actor: Actor, projectId: number, userId: number) {
      assertAdmin(actor);
      await db.transaction().execute(async (trx) => {
        const result = await trx.deleteFrom('project_members').where('project_id', '=', projectId).where('user_id', '=', userId).executeTakeFirst();
        if (Number(result.numDeletedRows) === 0) throw notFound('The membership');
        await trx
          .deleteFrom('item_participants')
          .where('user_id', '=', userId)
          .where('item_id', 'in', (eb) => eb.selectFrom('items').select('id').where('project_id', '=', projectId))
          .execute();
      });
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
