import type { Fixture } from '../features/fixtures/fixture.schema.js';

/** Every demo account signs in to the web interface with this password. */
export const DEMO_PASSWORD = 'punchlist-demo';
/** The account the printed demo token acts as: manager of both demo projects. */
export const DEMO_EMAIL = 'manager@demo.test';
/** The demo's foreman, whose interface speaks Russian. */
export const DEMO_FOREMAN = 'executor@demo.test';
/** docs/design.md §20: a subcontractor who sees only his company's items. */
export const DEMO_SUBCONTRACTOR = 'sasha@demo.test';
/** The fit-out's companies (the fixture's ids). */
export const STUCCOLINE = 1;
export const VOLTLINE = 2;
export const CLEARVIEW = 3;

export const DAY = 86_400_000;

type Project = NonNullable<Fixture['projects']>[number];
type Section = NonNullable<Project['sections']>[number];
type Checklist = NonNullable<Section['checklists']>[number];

/** Dates relative to the moment the demo is loaded: a day (YYYY-MM-DD) and a moment, `days` (and `hours`) from it. */
interface DemoDates {
  date: (days: number) => string;
  at: (days: number, hours?: number) => string;
}

/**
 * The demo workspace as a fixture (docs/design.md §2), so the demo goes through the same import path as
 * `punchlist import`. Dates are relative to `now` so deadlines stay meaningful whenever it is loaded.
 */
export function demoFixture(now: Date): Fixture {
  const dates: DemoDates = {
    date: (days) => new Date(now.getTime() + days * DAY).toISOString().slice(0, 10),
    at: (days, hours = 0) => new Date(now.getTime() + days * DAY + hours * 3_600_000).toISOString(),
  };
  return {
    users: demoUsers(dates),
    companies: [
      { id: STUCCOLINE, name: 'Stuccoline Plastering', trade: 'Plastering' },
      { id: VOLTLINE, name: 'Voltline Electrical', trade: 'Electrical' },
      { id: CLEARVIEW, name: 'ClearView Glazing', trade: 'Glazing' },
    ],
    projects: [plantAudit(dates), fitOut(dates), warehouseInspection(dates)],
  };
}

function demoUsers({ at }: DemoDates): NonNullable<Fixture['users']> {
  const password = DEMO_PASSWORD;
  return [
    { id: 1, email: 'admin@demo.test', name: 'Alice Admin', role: 'admin', password, created_at: at(-40) },
    { id: 2, email: DEMO_EMAIL, name: 'Maria Manager', role: 'member', password, created_at: at(-40) },
    { id: 3, email: 'executor@demo.test', name: 'Egor Executor', role: 'member', password, created_at: at(-39), company_id: STUCCOLINE },
    { id: 4, email: 'executor2@demo.test', name: 'Elena Executor', role: 'member', password, created_at: at(-39), company_id: VOLTLINE },
    { id: 5, email: 'observer@demo.test', name: 'Oscar Observer', role: 'member', password, created_at: at(-38), company_id: CLEARVIEW },
    { id: 6, email: 'partial@demo.test', name: 'Pavel Partial', role: 'member', password, created_at: at(-38) },
    // docs/design.md §20: the fit-out's subcontractors. Egor plasters, Elena and Sasha are the electricians, Oscar
    // glazes; Sasha was let in limited to his company's items.
    { id: 7, email: DEMO_SUBCONTRACTOR, name: 'Sasha Sparks', role: 'member', password, created_at: at(-23), company_id: VOLTLINE },
  ];
}

function plantAudit(dates: DemoDates): Project {
  const { date, at } = dates;
  return {
    id: 1,
    name: 'Plant audit',
    description: 'Yearly safety and compliance audit of the main production plant.',
    deadline: date(45),
    verdict: null,
    archived: false,
    created_at: at(-35),
    members: [
      { user_id: 2, role: 'manager', sections: null, checklists: null },
      { user_id: 3, role: 'executor', sections: null, checklists: null },
      { user_id: 4, role: 'executor', sections: null, checklists: null },
      { user_id: 5, role: 'observer', sections: null, checklists: null },
      // Partial access: the whole "Safety" section plus only the "Compressors" checklist of "Equipment".
      { user_id: 6, role: 'executor', sections: [10], checklists: [120] },
    ],
    sections: [safety(dates), documentation(dates), equipment(dates)],
  };
}

function safety(dates: DemoDates): Section {
  return {
    id: 10,
    name: 'Safety',
    checklists: [fireProtection(dates), electricalSafety(dates)],
  };
}

function fireProtection({ date, at }: DemoDates): Checklist {
  return {
    id: 100,
    name: 'Fire protection',
    items: [
      {
        id: 1000,
        text: 'Extinguishers checked and tagged',
        description: 'Every extinguisher has a valid inspection tag and is within reach.',
        status: 'done',
        priority: 'high',
        deadline: date(-5),
        requires_answer: true,
        participants: [3, 6],
        verdict: 'accepted',
        created_at: at(-30),
        document_links: [{ kind: 'document', title: 'Fire safety plan', url: 'https://example.test/docs/fire-safety-plan' }],
        comments: [
          { id: 5000, author_id: 2, text: 'Please attach the inspection act.', created_at: at(-20) },
          { id: 5001, author_id: 3, text: 'Done, the act is linked in my answer.', created_at: at(-12) },
        ],
        answers: [
          {
            id: 7000,
            author_id: 3,
            text: 'All 24 extinguishers checked; inspection act attached.',
            status: 'approved',
            created_at: at(-12),
            document_links: [{ kind: 'document', title: 'Inspection act No. 17', url: 'https://example.test/docs/act-17' }],
          },
        ],
      },
      {
        id: 1001,
        text: 'Evacuation routes marked',
        description: 'Signs are lit and routes are free of obstacles.',
        status: 'in_progress',
        priority: 'medium',
        deadline: date(7),
        requires_answer: true,
        participants: [6],
        rework_reason: 'The photos do not show the east staircase.',
        rework_deadline: date(7),
        created_at: at(-28),
        comments: [{ id: 5002, author_id: 6, text: 'Taking new photos this week.', created_at: at(-3) }],
        answers: [
          {
            id: 7001,
            author_id: 6,
            text: 'Routes marked, see the photo report.',
            status: 'rejected',
            created_at: at(-6),
            document_links: [{ kind: 'folder', title: 'Photo report', url: 'https://example.test/files/evacuation-photos' }],
          },
        ],
      },
    ],
  };
}

function electricalSafety({ date, at }: DemoDates): Checklist {
  return {
    id: 101,
    name: 'Electrical',
    items: [
      {
        id: 1002,
        text: 'Switchboards locked',
        status: 'pending',
        priority: 'low',
        deadline: date(20),
        requires_answer: false,
        participants: [4],
        created_at: at(-27),
      },
      {
        id: 1003,
        text: 'Grounding resistance measured',
        description: 'Measurement protocol for every switchboard.',
        status: 'blocked',
        priority: 'high',
        deadline: date(-2),
        requires_answer: true,
        participants: [4],
        created_at: at(-27),
        comments: [{ id: 5003, author_id: 4, text: 'Blocked: the measuring device is away for calibration.', created_at: at(-4) }],
      },
    ],
  };
}

function documentation({ date, at }: DemoDates): Section {
  return {
    id: 11,
    name: 'Documentation',
    checklists: [
      {
        id: 110,
        name: 'Permits',
        items: [
          {
            id: 1100,
            text: 'Проверка документов',
            description: 'Сверить разрешения и акты с реестром; отметить просроченные.',
            status: 'in_progress',
            priority: 'high',
            deadline: date(3),
            requires_answer: true,
            participants: [3, 4],
            created_at: at(-25),
            document_links: [
              { kind: 'spreadsheet', title: 'Реестр разрешений', url: 'https://example.test/sheets/permits' },
              { kind: 'document', title: 'Operating permit', url: 'https://example.test/docs/operating-permit' },
            ],
            comments: [{ id: 5004, author_id: 2, text: 'Начните с актов за прошлый год.', created_at: at(-10) }],
            answers: [
              {
                id: 7002,
                author_id: 3,
                text: 'Половина документов проверена, список расхождений в таблице.',
                status: 'pending',
                created_at: at(-1),
                document_links: [{ kind: 'spreadsheet', title: 'Расхождения', url: 'https://example.test/sheets/discrepancies' }],
              },
            ],
          },
          {
            id: 1101,
            text: 'Insurance policy renewed',
            status: 'pending',
            priority: 'medium',
            deadline: null,
            requires_answer: false,
            participants: [2],
            created_at: at(-25),
          },
        ],
      },
    ],
  };
}

function equipment(dates: DemoDates): Section {
  return {
    id: 12,
    name: 'Equipment',
    checklists: [compressors(dates), conveyors(dates)],
  };
}

function compressors({ date, at }: DemoDates): Checklist {
  return {
    id: 120,
    name: 'Compressors',
    items: [
      {
        id: 1200,
        text: 'Compressor pressure valves tested',
        status: 'done',
        priority: 'medium',
        deadline: date(-10),
        requires_answer: true,
        participants: [6],
        created_at: at(-24),
        answers: [
          {
            id: 7003,
            author_id: 6,
            text: 'Valves tested at 10 bar, all within tolerance.',
            status: 'approved',
            created_at: at(-11),
            document_links: [{ kind: 'document', title: 'Valve test protocol', url: 'https://example.test/docs/valve-protocol' }],
          },
        ],
      },
      {
        id: 1201,
        text: 'Compressor room ventilation',
        status: 'pending',
        priority: 'low',
        deadline: date(30),
        requires_answer: false,
        participants: [6, 4],
        created_at: at(-24),
      },
    ],
  };
}

function conveyors({ date, at }: DemoDates): Checklist {
  return {
    id: 121,
    name: 'Conveyors',
    items: [
      {
        id: 1202,
        text: 'Conveyor emergency stops work',
        status: 'pending',
        priority: 'high',
        deadline: date(10),
        requires_answer: true,
        participants: [3],
        created_at: at(-24),
        document_links: [{ kind: 'video', title: 'Test procedure', url: 'https://example.test/videos/e-stop-test' }],
      },
    ],
  };
}

function fitOut({ date, at }: DemoDates): Project {
  return {
    id: 3,
    name: 'Office fit-out, floor 3',
    description: 'Punch list of the fit-out before handover: walked with the contractor, defects raised on site with photos.',
    deadline: date(21),
    verdict: null,
    archived: false,
    created_at: at(-24),
    members: [
      { user_id: 2, role: 'manager', sections: null, checklists: null },
      { user_id: 1, role: 'manager', sections: null, checklists: null },
      { user_id: 3, role: 'executor', sections: null, checklists: null },
      { user_id: 4, role: 'executor', sections: null, checklists: null },
      // Roles are per project: Oscar observes the plant audit, and fixes things here.
      { user_id: 5, role: 'executor', sections: null, checklists: null },
      { user_id: 6, role: 'observer', sections: null, checklists: null },
      { user_id: 7, role: 'executor', sections: null, checklists: null, company_items_only: true },
    ],
    // The items are raised through the services after the import (raisePunchList), so that they carry photos
    // and their timeline, the feed and the review queue show the cycle as it happens in the web.
    sections: [
      {
        id: 30,
        name: 'Open space',
        checklists: [
          { id: 300, name: 'Walls and ceilings', items: [] },
          { id: 301, name: 'Electrics', items: [] },
        ],
      },
      { id: 31, name: 'Meeting rooms', checklists: [{ id: 310, name: 'Doors and glass', items: [] }] },
    ],
  };
}

function warehouseInspection({ date, at }: DemoDates): Project {
  return {
    id: 2,
    name: 'Warehouse inspection 2025',
    description: "Last year's warehouse inspection, closed and archived (read-only).",
    deadline: date(-200),
    verdict: 'accepted',
    archived: true,
    created_at: at(-300),
    members: [
      { user_id: 2, role: 'manager', sections: null, checklists: null },
      { user_id: 3, role: 'executor', sections: null, checklists: null },
    ],
    sections: [
      {
        id: 20,
        name: 'Storage',
        checklists: [
          {
            id: 200,
            name: 'Racks',
            items: [
              {
                id: 2000,
                text: 'Rack load signs present',
                status: 'done',
                priority: 'medium',
                deadline: date(-220),
                requires_answer: false,
                participants: [3],
                verdict: 'accepted',
                created_at: at(-300),
                comments: [{ id: 5005, author_id: 3, text: 'All racks signed.', created_at: at(-230) }],
              },
              {
                id: 2001,
                text: 'Damaged racks replaced',
                status: 'done',
                priority: 'high',
                deadline: date(-210),
                requires_answer: true,
                participants: [3],
                created_at: at(-300),
                answers: [
                  {
                    id: 7004,
                    author_id: 3,
                    text: 'Three racks replaced, invoice linked.',
                    status: 'approved',
                    created_at: at(-215),
                    document_links: [{ kind: 'document', title: 'Invoice', url: 'https://example.test/docs/rack-invoice' }],
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  };
}
