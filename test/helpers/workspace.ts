import { SCOPES, type Scope } from '../../src/domain/scopes.js';
import { generateToken } from '../../src/domain/token-format.js';

/**
 * The standard test workspace: one user per kind of access, tokens with every scope.
 * Project 1 "Plant audit": sections 10 (checklists 100, 101) and 20 (checklists 200, 201).
 * Project 2 "Archived works": archived. Project 3 "Other": nobody but the admin. Plan 1 "Ground floor" of
 * project 1 (test/helpers/plans.ts seedWorkspacePlan, added by the test server), no pin.
 */
export const USERS = {
  admin: 1,
  manager: 2,
  executor: 3, // participant of items 1000, 1001
  bystander: 4, // executor, participant of nothing
  observer: 5,
  partial: 6, // executor limited to section 10 + checklist 201; participant of 1000
  outsider: 7, // member of nothing
  inactive: 8, // deactivated manager
} as const;

export type UserKey = keyof typeof USERS;

export const PASSWORD = 'correct horse battery staple';

export function buildWorkspace() {
  const tokens = {} as Record<UserKey, string>;
  const tokenRows = Object.entries(USERS).map(([key, id]) => {
    const raw = generateToken();
    tokens[key as UserKey] = raw;
    return { id, user_id: id, name: `${key} full`, raw, scopes: [...SCOPES], expires_at: null, revoked_at: null };
  });
  const member = (user_id: number, role: string, sections: number[] | null = null, checklists: number[] | null = null) => ({
    user_id,
    role,
    sections,
    checklists,
  });
  const item = (id: number, status: string, extra: Record<string, unknown> = {}) => ({
    id,
    text: `Item ${id}`,
    description: `Description of item ${id}`,
    status,
    priority: 'medium',
    deadline: null,
    requires_answer: false,
    participants: [] as number[],
    created_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  });
  const fixture = {
    users: Object.entries(USERS).map(([key, id]) => ({
      id,
      email: `${key}@punchlist.test`,
      name: key[0]!.toUpperCase() + key.slice(1),
      role: key === 'admin' ? 'admin' : 'member',
      password: PASSWORD,
      active: key !== 'inactive',
    })),
    projects: [
      {
        id: 1,
        name: 'Plant audit',
        description: 'Yearly audit of the plant',
        deadline: '2026-12-31',
        verdict: null,
        archived: false,
        members: [
          member(USERS.manager, 'manager'),
          member(USERS.executor, 'executor'),
          member(USERS.bystander, 'executor'),
          member(USERS.observer, 'observer'),
          member(USERS.partial, 'executor', [10], [201]),
          member(USERS.inactive, 'manager'),
        ],
        sections: [
          {
            id: 10,
            name: 'Safety',
            checklists: [
              {
                id: 100,
                name: 'Fire',
                items: [
                  item(1000, 'pending', {
                    text: 'Extinguishers checked',
                    requires_answer: true,
                    participants: [USERS.executor, USERS.partial],
                    document_links: [{ kind: 'document', title: 'Plan', url: 'https://example.test/plan' }],
                    comments: [{ id: 5000, author_id: USERS.executor, text: 'On it' }],
                    answers: [
                      { id: 7000, author_id: USERS.executor, text: 'Done, see act', status: 'approved', document_links: [] },
                      { id: 7001, author_id: USERS.partial, text: 'Second answer', status: 'pending' },
                    ],
                  }),
                  item(1001, 'in_progress', { participants: [USERS.executor], priority: 'high', deadline: '2026-06-30' }),
                ],
              },
              { id: 101, name: 'Exits', items: [item(1010, 'done'), item(1011, 'blocked')] },
            ],
          },
          {
            id: 20,
            name: 'Documents',
            checklists: [
              { id: 200, name: 'Permits', items: [item(2000, 'done', { text: 'Проверка документов' }), item(2001, 'pending')] },
              { id: 201, name: 'Reports', items: [item(2010, 'pending')] },
            ],
          },
        ],
      },
      {
        id: 2,
        name: 'Archived works',
        archived: true,
        members: [member(USERS.manager, 'manager'), member(USERS.executor, 'executor')],
        sections: [
          {
            id: 30,
            name: 'Old',
            checklists: [{ id: 300, name: 'Old list', items: [item(3000, 'done', { participants: [USERS.executor] })] }],
          },
        ],
      },
      {
        id: 3,
        name: 'Other',
        sections: [{ id: 40, name: 'Hidden', checklists: [{ id: 400, name: 'Hidden list', items: [item(4000, 'pending')] }] }],
      },
    ],
    tokens: tokenRows,
  };
  return { fixture, tokens };
}

export function scopesExcept(scope: Scope): Scope[] {
  return SCOPES.filter((s) => s !== scope);
}
