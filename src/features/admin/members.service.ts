import type { Clock } from '../../shared/clock.js';
import type { Actor } from '../../domain/policy.js';
import { MEMBER_ROLES, type MemberRole } from '../../domain/values.js';
import { notFound } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { RecordAudit } from '../audit/audit.service.js';
import { assertAdmin } from './admin-guard.js';
import type { MembersRepository } from './members.repository.js';

interface MemberInput {
  userId: number;
  role: string;
  /** false: the whole project. true: only the union of `sectionIds` and `checklistIds` (partial access). */
  limited: boolean;
  sectionIds: number[];
  checklistIds: number[];
  /** docs/design.md §20: only the items whose responsible company is the member's own. */
  companyItemsOnly?: boolean;
}

const idList = (value: string | null): number[] | null => (value === null ? null : (JSON.parse(value) as number[]));

/** A member of a project as the admin's editor lists them; `null` lists: no limit of that kind. */
export interface ProjectMember {
  user_id: number;
  email: string;
  name: string;
  active: number;
  role: string;
  section_ids: number[] | null;
  checklist_ids: number[] | null;
  /** 1: only the items of the member's company (docs/design.md §20). */
  company_items_only: number;
}

/** Project memberships (role, and optionally partial access to sections and checklists), for administrators. */
export function createMembersService(deps: { repo: MembersRepository; clock: Clock }) {
  const { repo, clock } = deps;

  async function projectExists(projectId: number) {
    if (!(await repo.projectExists(projectId))) throw notFound('The project');
  }

  return {
    async listMembers(actor: Actor, projectId: number): Promise<ProjectMember[]> {
      assertAdmin(actor);
      await projectExists(projectId);
      const rows = await repo.listOfProject(projectId);
      return rows.map((r) => ({ ...r, section_ids: idList(r.section_ids), checklist_ids: idList(r.checklist_ids) }));
    },

    /** Adds a member or changes an existing membership. Limited access needs at least one section or checklist. */
    async setMember(actor: Actor, projectId: number, input: MemberInput, recordAudit?: RecordAudit) {
      assertAdmin(actor);
      await projectExists(projectId);
      if (!(MEMBER_ROLES as readonly string[]).includes(input.role)) {
        throw invalidField('role', 'reason.mustBeOneOf', { values: MEMBER_ROLES.join(', ') });
      }
      if (!(await repo.userExists(input.userId))) throw invalidField('user', 'reason.notUser');
      const sectionIds = [...new Set(input.sectionIds)].sort((a, b) => a - b);
      const checklistIds = [...new Set(input.checklistIds)].sort((a, b) => a - b);
      if (input.limited) {
        if (!sectionIds.length && !checklistIds.length) {
          throw invalidField('access', 'reason.chooseAccess');
        }
        const [sections, checklists] = await Promise.all([
          repo.countOfProject('sections', projectId, sectionIds),
          repo.countOfProject('checklists', projectId, checklistIds),
        ]);
        if (sections !== sectionIds.length) throw invalidField('sections', 'reason.projectSections');
        if (checklists !== checklistIds.length) throw invalidField('checklists', 'reason.projectChecklists');
      }
      const values = {
        role: input.role as MemberRole,
        section_ids: input.limited ? JSON.stringify(sectionIds) : null,
        checklist_ids: input.limited ? JSON.stringify(checklistIds) : null,
        company_items_only: input.companyItemsOnly ? 1 : 0,
      };
      await repo.transaction(async (trx) => {
        await repo.upsert(trx, projectId, input.userId, values, clock.now().toISOString());
        await recordAudit?.(trx);
      });
    },

    /** Ends a membership; the user stops being a participant of the project's items. */
    async removeMember(actor: Actor, projectId: number, userId: number, recordAudit?: RecordAudit) {
      assertAdmin(actor);
      await repo.transaction(async (trx) => {
        if (!(await repo.remove(trx, projectId, userId))) throw notFound('The membership');
        await recordAudit?.(trx);
      });
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
