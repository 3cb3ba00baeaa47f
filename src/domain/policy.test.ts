import { describe, expect, it } from 'vitest';
import {
  type Actor,
  can,
  canOnProject,
  ITEM_ACTIONS,
  type ItemAction,
  type ItemTarget,
  type Membership,
  projectLimit,
  seesChecklist,
  seesSection,
} from './policy.js';
import type { MemberRole } from './values.js';

/*
 * docs/design.md §3, written out as data. The expectations below never call the policy:
 * a row is what the table says for an item the user can see in an active project.
 */
type Who = 'admin' | 'manager' | 'executor participant' | 'executor non-participant' | 'observer' | 'non-member';

const Y = true;
const N = false;
// Columns in the order of ITEM_ACTIONS (checked below, so a new action cannot slip by unnoticed).
const COLUMNS = [
  'read',
  'item.status',
  'item.planning',
  'comment.add',
  'answer.add',
  'item.materials',
  'answer.images',
  'answer.review',
  'item.verdict',
  'item.rework',
  'item.edit',
  'item.place',
  'item.dispute',
  'item.resolve_dispute',
  'photo.describe',
] as const;
// A dispute is the item's executors' word (docs/design.md §20): not the managers', not even an admin's.
// photo: a photo's stage and caption, of a photo somebody else uploaded (the uploader's own: below).
//                                      read status plan comm answ mater aimg review verdict rework edit place disp resolve photo
const TABLE: Record<Who, boolean[]> = {
  admin: /*                         */ [Y, Y, Y, Y, Y, Y, Y, Y, Y, Y, Y, Y, N, Y, Y],
  manager: /*                       */ [Y, Y, Y, Y, Y, Y, Y, Y, Y, Y, Y, Y, N, Y, Y],
  'executor participant': /*        */ [Y, Y, N, Y, Y, Y, Y, N, N, N, N, N, Y, N, N],
  'executor non-participant': /*    */ [Y, N, N, Y, N, N, N, N, N, N, N, N, N, N, N],
  observer: /*                      */ [Y, N, N, Y, N, N, N, N, N, N, N, N, N, N, N],
  'non-member': /*                  */ [N, N, N, N, N, N, N, N, N, N, N, N, N, N, N],
};

type Access = 'full' | 'partial via section' | 'partial via checklist' | 'partial excluding it';

// The item under test lives in section 10, checklist 100; section 20 holds checklist 201.
const SECTION = 10;
const CHECKLIST = 100;
const ACTOR_ID = 42;
const PROJECT_ID = 7;
const OTHER_USER = 43;

const LIMITS: Record<Access, Pick<Membership, 'sectionIds' | 'checklistIds'>> = {
  full: { sectionIds: null, checklistIds: null },
  'partial via section': { sectionIds: [SECTION], checklistIds: [201] },
  'partial via checklist': { sectionIds: [20], checklistIds: [CHECKLIST] },
  'partial excluding it': { sectionIds: [20], checklistIds: [201] },
};

const ROLE_OF: Record<Who, MemberRole | null> = {
  // The admin is given a membership that excludes the item in the partial rows: the global role still wins.
  admin: 'observer',
  manager: 'manager',
  'executor participant': 'executor',
  'executor non-participant': 'executor',
  observer: 'observer',
  'non-member': null,
};

function actorOf(who: Who): Actor {
  return { id: ACTOR_ID, role: who === 'admin' ? 'admin' : 'member' };
}

function targetOf(who: Who, access: Access, archived: boolean): ItemTarget {
  const role = ROLE_OF[who];
  const adminWithoutLimit = who === 'admin' && access === 'full';
  return {
    projectId: PROJECT_ID,
    archived,
    membership: role === null || adminWithoutLimit ? null : { role, ...LIMITS[access] },
    sectionId: SECTION,
    checklistId: CHECKLIST,
    participantIds: who === 'executor participant' ? [OTHER_USER, ACTOR_ID] : [OTHER_USER],
    answerAuthorId: OTHER_USER,
    photoUploaderId: OTHER_USER,
  };
}

function expected(who: Who, access: Access, archived: boolean, action: ItemAction): boolean {
  const visible = who === 'admin' || (who !== 'non-member' && access !== 'partial excluding it');
  if (!visible) return false;
  const allowed = TABLE[who][COLUMNS.indexOf(action as (typeof COLUMNS)[number])];
  if (allowed === undefined) throw new Error(`no column for ${action}`);
  // Items of an archived project are read-only for everybody.
  return archived ? action === 'read' && allowed : allowed;
}

const WHO = Object.keys(TABLE) as Who[];
const ACCESS = Object.keys(LIMITS) as Access[];
const CASES = WHO.flatMap((who) =>
  ACCESS.flatMap((access) =>
    [false, true].flatMap((archived) =>
      ITEM_ACTIONS.map((action) => ({ who, access, archived, action, allowed: expected(who, access, archived, action) })),
    ),
  ),
);

describe('can(): docs/design.md §3 for items', () => {
  it('covers every action of the policy, in the table', () => {
    expect([...ITEM_ACTIONS].sort()).toEqual([...COLUMNS].sort());
    expect(CASES).toHaveLength(6 * 4 * 2 * COLUMNS.length);
  });

  it.each(CASES)('$who, $access, archived=$archived: $action → $allowed', ({ who, access, archived, action, allowed }) => {
    expect(can(actorOf(who), action, targetOf(who, access, archived))).toBe(allowed);
  });

  it('the table grants some writes in an active project and none in an archived one', () => {
    const writes = CASES.filter((c) => c.action !== 'read');
    expect(writes.filter((c) => !c.archived && c.allowed).length).toBeGreaterThan(0);
    expect(writes.filter((c) => c.archived && c.allowed)).toEqual([]);
  });
});

describe('can(): the stage and caption of a photo, for its uploader (docs/design.md §22)', () => {
  it('lets the executor who uploaded it change them, in an active project they see, whether a participant or not', () => {
    for (const who of ['executor participant', 'executor non-participant'] as const) {
      const target = { ...targetOf(who, 'full', false), photoUploaderId: ACTOR_ID };
      expect(can(actorOf(who), 'photo.describe', target)).toBe(true);
      expect(can(actorOf(who), 'photo.describe', { ...target, archived: true })).toBe(false);
      expect(can(actorOf(who), 'photo.describe', { ...targetOf(who, 'partial excluding it', false), photoUploaderId: ACTOR_ID })).toBe(
        false,
      );
    }
    expect(can(actorOf('observer'), 'photo.describe', { ...targetOf('observer', 'full', false), photoUploaderId: ACTOR_ID })).toBe(false);
  });
});

describe('can(): answer images for the answer author', () => {
  const author = (role: MemberRole, access: Access, archived = false): ItemTarget => ({
    projectId: PROJECT_ID,
    archived,
    membership: { role, ...LIMITS[access] },
    sectionId: SECTION,
    checklistId: CHECKLIST,
    participantIds: [OTHER_USER],
    answerAuthorId: ACTOR_ID,
  });
  const member: Actor = { id: ACTOR_ID, role: 'member' };

  it('lets an executor who wrote the answer, but is not a participant, attach images to it', () => {
    expect(can(member, 'answer.images', author('executor', 'full'))).toBe(true);
    expect(can(member, 'answer.images', author('executor', 'partial via checklist'))).toBe(true);
  });
  it('does not extend to other materials of the item', () => {
    expect(can(member, 'item.materials', author('executor', 'full'))).toBe(false);
    expect(can(member, 'answer.add', author('executor', 'full'))).toBe(false);
  });
  it("refuses another author's answer to the same non-participant", () => {
    expect(can(member, 'answer.images', { ...author('executor', 'full'), answerAuthorId: OTHER_USER })).toBe(false);
    expect(can(member, 'answer.images', { ...author('executor', 'full'), answerAuthorId: undefined })).toBe(false);
  });
  it('refuses an observer even for their own answer', () => {
    expect(can(member, 'answer.images', author('observer', 'full'))).toBe(false);
  });
  it('refuses in an archived project and where the item is not visible', () => {
    expect(can(member, 'answer.images', author('executor', 'full', true))).toBe(false);
    expect(can(member, 'answer.images', author('executor', 'partial excluding it'))).toBe(false);
    expect(can(member, 'answer.images', { ...author('executor', 'full'), membership: null })).toBe(false);
  });
});

describe('canOnProject()', () => {
  const admin: Actor = { id: 1, role: 'admin' };
  const member: Actor = { id: 2, role: 'member' };
  const membership = (role: MemberRole, access: Access = 'full'): Membership => ({ role, ...LIMITS[access] });

  // [actor, membership, archived, read, project.verdict, project.structure]
  const rows: [string, Actor, Membership | null, boolean, boolean, boolean, boolean][] = [
    ['admin, no membership', admin, null, false, Y, Y, Y],
    ['admin, no membership, archived', admin, null, true, Y, N, N],
    ['manager', member, membership('manager'), false, Y, Y, Y],
    ['manager, archived', member, membership('manager'), true, Y, N, N],
    ['manager, partial', member, membership('manager', 'partial via checklist'), false, Y, Y, N],
    ['executor', member, membership('executor'), false, Y, N, N],
    ['executor, partial', member, membership('executor', 'partial excluding it'), false, Y, N, N],
    ['executor, archived', member, membership('executor'), true, Y, N, N],
    ['observer', member, membership('observer'), false, Y, N, N],
    ['observer, archived', member, membership('observer'), true, Y, N, N],
    ['non-member', member, null, false, N, N, N],
    ['non-member, archived', member, null, true, N, N, N],
  ];

  it.each(rows)('%s: read %s, verdict %s, structure %s', (_name, actor, m, archived, read, verdict, structure) => {
    const target = { projectId: PROJECT_ID, archived, membership: m };
    expect(canOnProject(actor, 'read', target)).toBe(read);
    expect(canOnProject(actor, 'project.verdict', target)).toBe(verdict);
    expect(canOnProject(actor, 'project.structure', target)).toBe(structure);
    expect(canOnProject(actor, 'project.items', target)).toBe(verdict);
    expect(canOnProject(actor, 'project.plans', target)).toBe(verdict);
  });
});

describe('seesSection() / seesChecklist()', () => {
  // Sections 10 (checklists 100, 101) and 20 (checklists 200, 201).
  const SECTIONS: Record<number, number[]> = { 10: [100, 101], 20: [200, 201] };
  const limited = (sectionIds: number[] | null, checklistIds: number[] | null): Membership => ({
    role: 'executor',
    sectionIds,
    checklistIds,
  });
  const visibleSections = (m: Membership) => [10, 20].filter((s) => seesSection(m, s, SECTIONS[s]!));
  const visibleChecklists = (m: Membership) => [10, 20].flatMap((s) => SECTIONS[s]!.filter((c) => seesChecklist(m, s, c)));

  it('without limits: everything', () => {
    const m = limited(null, null);
    expect(visibleSections(m)).toEqual([10, 20]);
    expect(visibleChecklists(m)).toEqual([100, 101, 200, 201]);
  });
  it('a granted section: the whole section and nothing else', () => {
    const m = limited([10], null);
    expect(visibleSections(m)).toEqual([10]);
    expect(visibleChecklists(m)).toEqual([100, 101]);
  });
  it('a granted checklist: its parent section, holding only that checklist', () => {
    const m = limited(null, [201]);
    expect(visibleSections(m)).toEqual([20]);
    expect(visibleChecklists(m)).toEqual([201]);
  });
  it('both kinds: the union (section 10 whole, section 20 with checklist 201 only)', () => {
    const m = limited([10], [201]);
    expect(visibleSections(m)).toEqual([10, 20]);
    expect(visibleChecklists(m)).toEqual([100, 101, 201]);
  });
  it('an empty list is a limit: it grants nothing', () => {
    expect(visibleSections(limited([], null))).toEqual([]);
    expect(visibleChecklists(limited([], null))).toEqual([]);
    expect(visibleSections(limited(null, []))).toEqual([]);
    expect(visibleChecklists(limited(null, []))).toEqual([]);
  });
  it('a section without granted checklists stays hidden, even an empty one', () => {
    expect(seesSection(limited(null, [201]), 10, [])).toBe(false);
    expect(seesSection(limited([10], null), 10, [])).toBe(true);
  });
  it('grants of another project’s ids do not leak', () => {
    const m = limited([30], [300]);
    expect(visibleSections(m)).toEqual([]);
    expect(visibleChecklists(m)).toEqual([]);
  });
});

describe('a token limited to projects (docs/design.md §18)', () => {
  const everyone: [string, Actor, Membership | null][] = [
    ['admin', { id: ACTOR_ID, role: 'admin' }, null],
    ['manager', { id: ACTOR_ID, role: 'member' }, { role: 'manager', sectionIds: null, checklistIds: null }],
    ['observer', { id: ACTOR_ID, role: 'member' }, { role: 'observer', sectionIds: null, checklistIds: null }],
  ];
  const item = (membership: Membership | null, projectId: number): ItemTarget => ({
    projectId,
    archived: false,
    membership,
    sectionId: 10,
    checklistId: 100,
    participantIds: [ACTOR_ID],
  });

  it.each(everyone)('%s: nothing outside the list, every action refused', (_name, actor, membership) => {
    const limited = { ...actor, projectIds: [PROJECT_ID + 1] };
    expect(canOnProject(limited, 'read', { projectId: PROJECT_ID, archived: false, membership })).toBe(false);
    expect(canOnProject(limited, 'project.verdict', { projectId: PROJECT_ID, archived: false, membership })).toBe(false);
    for (const action of ITEM_ACTIONS) expect(can(limited, action, item(membership, PROJECT_ID))).toBe(false);
  });

  it.each(everyone)('%s: inside the list, exactly the rights without a limit', (_name, actor, membership) => {
    const limited = { ...actor, projectIds: [PROJECT_ID] };
    for (const action of ITEM_ACTIONS) {
      expect(can(limited, action, item(membership, PROJECT_ID))).toBe(can(actor, action, item(membership, PROJECT_ID)));
    }
    expect(canOnProject(limited, 'project.verdict', { projectId: PROJECT_ID, archived: false, membership })).toBe(
      canOnProject(actor, 'project.verdict', { projectId: PROJECT_ID, archived: false, membership }),
    );
  });

  it('limits only narrow: a listed project the user cannot see stays invisible', () => {
    const member: Actor = { id: ACTOR_ID, role: 'member', projectIds: [PROJECT_ID] };
    expect(canOnProject(member, 'read', { projectId: PROJECT_ID, archived: false, membership: null })).toBe(false);
    expect(can(member, 'read', item(null, PROJECT_ID))).toBe(false);
  });

  it('an empty list reaches nothing; null reaches everything', () => {
    const admin: Actor = { id: ACTOR_ID, role: 'admin' };
    expect(canOnProject({ ...admin, projectIds: [] }, 'read', { projectId: PROJECT_ID, archived: false, membership: null })).toBe(false);
    expect(canOnProject({ ...admin, projectIds: null }, 'read', { projectId: PROJECT_ID, archived: false, membership: null })).toBe(true);
    expect(projectLimit({ ...admin, projectIds: [3] })).toEqual([3]);
    expect(projectLimit(admin)).toBeNull();
  });
});
