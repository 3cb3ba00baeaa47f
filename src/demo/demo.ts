import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../shared/clock.js';
import type { AppContext } from '../composition/context.js';
import type { Actor } from '../domain/policy.js';
import type { UserRole } from '../domain/values.js';
import { SCOPES } from '../domain/scopes.js';
import type { Fixture } from '../features/fixtures/fixture.schema.js';
import { importFixture } from '../features/fixtures/import.service.js';

/** Every demo account signs in to the web interface with this password. */
const DEMO_PASSWORD = 'punchlist-demo';
/** The account the printed demo token acts as: manager of both demo projects. */
export const DEMO_EMAIL = 'manager@demo.test';

const DAY = 86_400_000;
/** The demo's foreman, whose interface speaks Russian. */
const DEMO_FOREMAN = 'executor@demo.test';
/** docs/design.md §20: a subcontractor who sees only his company's items. */
const DEMO_SUBCONTRACTOR = 'sasha@demo.test';
/** The fit-out's companies (the fixture's ids). */
const STUCCOLINE = 1;
const VOLTLINE = 2;
const CLEARVIEW = 3;

/**
 * The demo workspace as a fixture (docs/design.md §2), so the demo goes through the same import path as
 * `punchlist import`. Dates are relative to `now` so deadlines stay meaningful whenever it is loaded.
 */
function demoFixture(now: Date): Fixture {
  const date = (days: number) => new Date(now.getTime() + days * DAY).toISOString().slice(0, 10);
  const at = (days: number, hours = 0) => new Date(now.getTime() + days * DAY + hours * 3_600_000).toISOString();
  const password = DEMO_PASSWORD;
  return {
    users: [
      { id: 1, email: 'admin@demo.test', name: 'Alice Admin', role: 'admin', password, created_at: at(-40) },
      { id: 2, email: DEMO_EMAIL, name: 'Maria Manager', role: 'member', password, created_at: at(-40) },
      { id: 3, email: 'executor@demo.test', name: 'Egor Executor', role: 'member', password, created_at: at(-39), company_id: STUCCOLINE },
      { id: 4, email: 'executor2@demo.test', name: 'Elena Executor', role: 'member', password, created_at: at(-39), company_id: VOLTLINE },
      { id: 5, email: 'observer@demo.test', name: 'Oscar Observer', role: 'member', password, created_at: at(-38), company_id: CLEARVIEW },
      { id: 6, email: 'partial@demo.test', name: 'Pavel Partial', role: 'member', password, created_at: at(-38) },
      // docs/design.md §20: the fit-out's subcontractors. Egor plasters, Elena and Sasha are the electricians, Oscar
      // glazes; Sasha was let in limited to his company's items.
      { id: 7, email: DEMO_SUBCONTRACTOR, name: 'Sasha Sparks', role: 'member', password, created_at: at(-23), company_id: VOLTLINE },
    ],
    companies: [
      { id: STUCCOLINE, name: 'Stuccoline Plastering', trade: 'Plastering' },
      { id: VOLTLINE, name: 'Voltline Electrical', trade: 'Electrical' },
      { id: CLEARVIEW, name: 'ClearView Glazing', trade: 'Glazing' },
    ],
    projects: [
      {
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
        sections: [
          {
            id: 10,
            name: 'Safety',
            checklists: [
              {
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
              },
              {
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
                    comments: [
                      { id: 5003, author_id: 4, text: 'Blocked: the measuring device is away for calibration.', created_at: at(-4) },
                    ],
                  },
                ],
              },
            ],
          },
          {
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
          },
          {
            id: 12,
            name: 'Equipment',
            checklists: [
              {
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
                        document_links: [
                          { kind: 'document', title: 'Valve test protocol', url: 'https://example.test/docs/valve-protocol' },
                        ],
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
              },
              {
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
              },
            ],
          },
        ],
      },
      {
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
      },
      {
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
      },
    ],
  };
}

const PHOTOS = fileURLToPath(new URL('./photos/', import.meta.url));
/** The fit-out's floor plan in two revisions, drawn for the demo by scripts/make-demo-plan.mjs. */
const PLANS = fileURLToPath(new URL('./plans/', import.meta.url));

/**
 * Uploads a drawing of the demo through the plans service as a manager would, and waits for its rendering. The
 * service takes the file it is given (and removes it), so it gets a copy.
 */
async function uploadDemoPlan(ctx: AppContext, actor: Actor, projectId: number, file: string, options: { name?: string; planId?: number }) {
  const folder = mkdtempSync(join(tmpdir(), 'punchlist-demo-plan-'));
  try {
    const path = join(folder, file);
    copyFileSync(join(PLANS, file), path);
    const started = await ctx.planUploads.startUpload(actor, projectId, { path, filename: file }, options);
    await ctx.planUploads.waitForUpload(started.id);
    const done = await ctx.planUploads.uploadStatus(actor, started.id);
    if (done.status !== 'done') throw new Error(`the demo plan ${file} was not rendered: ${done.error}`);
    return done.plan_ids[0]!;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The punch-list cycle on the fit-out project, through the same services as the web: the manager walks the
 * floor and raises defects with photos, executors work and answer, the manager reviews and returns one item
 * to rework. Every step is in the items' timelines, the audit-free service path (no request) and the event feed.
 */
async function raisePunchList(ctx: AppContext, date: (days: number) => string, on: (days: number, hours?: number) => void) {
  const person = async (email: string) => {
    const user = await ctx.users.findByEmail(email);
    if (!user) throw new Error(`the demo user ${email} was not imported`);
    return { id: user.id, role: user.role as UserRole, name: user.name };
  };
  const [maria, egor, elena, oscar, alice, sasha] = await Promise.all(
    [DEMO_EMAIL, 'executor@demo.test', 'executor2@demo.test', 'observer@demo.test', 'admin@demo.test', DEMO_SUBCONTRACTOR].map(person),
  );
  const file = (name: string) => {
    const path = join(PHOTOS, name);
    return { originalName: name, path, size: statSync(path).size, oversized: false };
  };
  // docs/design.md §21: the fit-out's own vocabulary — trades as categories, severity and a cost estimate.
  on(-22, 9);
  const trades = await demoVocabulary(ctx, maria!);
  const photo = (name: string, caption?: string) => () => ctx.attachments.prepare([file(name)], caption ? { caption } : {});
  const raise = (checklist: number, input: Parameters<AppContext['itemEdits']['createItem']>[2]) =>
    ctx.itemEdits.createItem(maria!, checklist, input);

  on(-21, 9);
  const crack = await raise(300, {
    text: 'Crack in the plaster by the window, axis C',
    description: 'About 40 cm, from the window sill upwards. Check whether it is only the plaster.',
    participantIds: [egor!.id],
    priority: 'high',
    deadline: date(5),
    requires_answer: true,
    prepareImages: photo('crack.jpg', 'Crack from the window sill upwards, about 40 cm'),
    vocabulary: trades.of('Plastering', 'major', '350'),
    companyId: STUCCOLINE,
  });
  on(-20, 10);
  const socket = await raise(301, {
    text: 'Socket cover missing, desk row C',
    participantIds: [elena!.id, oscar!.id, sasha!.id],
    priority: 'medium',
    deadline: date(-2),
    prepareImages: photo('socket.jpg'),
    vocabulary: trades.of('Electrical', 'minor', '25'),
    companyId: VOLTLINE,
  });
  on(-19, 14);
  const glass = await raise(310, {
    text: 'Scratched glass door, room 3.2',
    participantIds: [oscar!.id],
    priority: 'medium',
    deadline: date(3),
    requires_answer: true,
    prepareImages: photo('glass.jpg'),
    vocabulary: trades.of('Glazing', 'major', '1200'),
    companyId: CLEARVIEW,
  });
  on(-18, 11);
  const tile = await raise(300, {
    text: 'Stained ceiling tile above the kitchen',
    participantIds: [egor!.id],
    priority: 'low',
    deadline: date(10),
    vocabulary: trades.of('Ceilings', 'minor', '40'),
    companyId: STUCCOLINE,
  });
  // Raised against the plasterers by mistake: Egor disputes it (docs/design.md §20), Maria has yet to resolve it.
  on(-11, 10);
  const tray = await raise(301, {
    text: 'Cable tray cover loose above desk row A',
    participantIds: [egor!.id],
    priority: 'medium',
    deadline: date(6),
    vocabulary: trades.of('Electrical', 'minor', '15'),
    companyId: STUCCOLINE,
  });
  on(-10, 9);
  await ctx.itemDisputes.dispute(egor!, tray, { reason: 'Not plastering: the cable tray is the electricians’ work.' });

  on(-14, 16);
  await raise(310, { text: 'Handover documents for the door closers', participantIds: [alice!.id], deadline: date(14) });

  on(-16, 8);
  await ctx.itemWrites.setStatus(egor!, crack, 'in_progress');
  on(-16, 8.5);
  await ctx.comments.addComment(egor!, crack, { text: 'Plasterer booked for Thursday; it is only the plaster layer.' });
  // Photos that show the defect (docs/design.md §22): the executor circles the crack on the manager's photo, then
  // answers with the photo of the fix; both stages side by side on the item page and in the report.
  on(-16, 9);
  const [crackPhoto] = (await ctx.items.getItemCard(egor!, crack)).item.attachments;
  await ctx.attachments.markUp(egor!, crackPhoto!.id, file('crack-marked.jpg'), {
    caption: 'Only the plaster layer is cracked (circled)',
    markupKey: 'demo-crack-markup',
  });
  on(-13, 17);
  await ctx.answers.addAnswer(egor!, crack, {
    text: 'Crack raked out, filled and painted.',
    prepareImages: photo('crack-fixed.jpg', 'Filled, sanded and painted over'),
  });
  on(-12, 13);
  await ctx.itemWrites.setStatus(elena!, socket, 'blocked');
  on(-12, 13.5);
  await ctx.comments.addComment(elena!, socket, { text: 'Waiting for the covers from the supplier.' });
  on(-9, 15);
  await ctx.answers.addAnswer(egor!, tile, { text: 'Tile replaced, the leak above was already fixed by the plumber.' });
  on(-9, 15.5);
  await ctx.itemWrites.setStatus(egor!, tile, 'done');
  on(-6, 11);
  const { answer } = await ctx.answers.addAnswer(oscar!, glass, { text: 'Glass polished, the scratch is gone.' });
  on(-6, 11.5);
  await ctx.itemWrites.setStatus(oscar!, glass, 'done');
  on(-3, 10);
  await ctx.review.reviewAnswer(maria!, answer.id, 'rejected');
  on(-3, 10.5);
  await ctx.review.returnToRework(maria!, glass, {
    reason: 'The scratch is still visible in daylight: replace the pane.',
    deadline: date(3),
  });

  // Where each defect is: floor 3's plan (revision A), its items pinned, then revision B uploaded as the plan's
  // second version: every pin stays where it was.
  const floor = await uploadDemoPlan(ctx, maria!, FIT_OUT, 'floor-3-rev-a.pdf', { name: 'Floor 3' });
  const places: [number, number, number][] = [
    [crack, 0.41, 0.14],
    [socket, 0.25, 0.58],
    [glass, 0.65, 0.45],
    [tile, 0.74, 0.52],
  ];
  for (const [item, x, y] of places) await ctx.itemLocations.placeItem(maria!, item, { planId: floor, x, y });
  await uploadDemoPlan(ctx, maria!, FIT_OUT, 'floor-3-rev-b.pdf', { planId: floor });

  // docs/design.md §21: one template ships with the demo, for "New project" and "Add checklist from template".
  await ctx.templates.importTemplate(alice!, APARTMENT_HANDOVER);
}

/**
 * The fit-out's categories (trades), fields (severity, cost estimate) and escalation ladder; `of` gives an item's
 * values by name.
 */
async function demoVocabulary(ctx: AppContext, manager: { id: number; role: UserRole }) {
  const categories = new Map<string, number>();
  for (const trade of ['Plastering', 'Electrical', 'Glazing', 'Ceilings']) {
    categories.set(trade, await ctx.vocabulary.addCategory(manager, FIT_OUT, trade));
  }
  const severity = await ctx.vocabulary.addField(manager, FIT_OUT, { name: 'Severity', kind: 'choice', options: 'minor\nmajor\ncritical' });
  const cost = await ctx.vocabulary.addField(manager, FIT_OUT, { name: 'Cost estimate', kind: 'number' });
  // Overdue defects climb the ladder (docs/notifications.md): every 2 days, to the managers from day 7.
  await ctx.vocabulary.setEscalation(manager, FIT_OUT, { everyDays: 2, managersAfterDays: 7 });
  return {
    of: (trade: string, level: string, estimate: string) => ({
      categoryId: categories.get(trade)!,
      values: new Map([
        [severity, level],
        [cost, estimate],
      ]),
    }),
  };
}

/** The demo's template (docs/cli.md, "Templates"): an apartment's handover walk, room by room. */
const APARTMENT_HANDOVER = {
  name: 'Apartment handover',
  categories: ['Plastering', 'Electrical', 'Plumbing', 'Joinery'],
  fields: [
    { name: 'Severity', kind: 'choice', options: ['minor', 'major', 'critical'], required: false },
    { name: 'Cost estimate', kind: 'number', options: [], required: false },
  ],
  sections: [
    {
      name: 'Kitchen',
      checklists: [
        {
          name: 'Kitchen walk',
          items: [
            { text: 'Worktop joints sealed', category: 'Joinery', priority: 'medium' },
            { text: 'Sink and tap without leaks', category: 'Plumbing', priority: 'high', requires_answer: true },
            { text: 'Sockets above the worktop work', category: 'Electrical' },
          ],
        },
      ],
    },
    {
      name: 'Bathroom',
      checklists: [
        {
          name: 'Bathroom walk',
          items: [
            { text: 'Silicone around the bath complete', category: 'Plumbing' },
            { text: 'Extractor fan runs', category: 'Electrical' },
          ],
        },
      ],
    },
    {
      name: 'Living room',
      checklists: [{ name: 'Walls and doors', items: [{ text: 'Walls free of cracks and marks', category: 'Plastering' }] }],
    },
  ],
};

/**
 * The demo's story happened over the past weeks, not at load time: while it is written, the context's clock (the
 * one every service reads for history, comments, answers, reviews and events) reads the day of each step,
 * `on(days, hours)` from the start of today's day (UTC) `days` away, moving on with real time between two
 * steps so that their order holds. The demo is loaded before the server listens (main.ts), so no request reads
 * that clock meanwhile; `restore` puts the real clock back.
 */
function storyClock(clock: Clock, now: Date): { on: (days: number, hours?: number) => void; restore: () => void } {
  const writable = clock as { now: () => Date };
  const real = writable.now;
  const startOfToday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  let shift = 0;
  writable.now = () => new Date(real.call(clock).getTime() + shift);
  return {
    on(days, hours = 12) {
      shift = startOfToday + days * DAY + hours * 3_600_000 - real.call(clock).getTime();
    },
    restore() {
      writable.now = real;
    },
  };
}
/** The fit-out project of the demo fixture. */
const FIT_OUT = 3;

/** Who can sign in to the demo, for the start banner. */
export const DEMO_SIGN_INS = [
  { email: 'admin@demo.test', who: 'Alice Admin, administrator' },
  { email: DEMO_EMAIL, who: 'Maria Manager, manager of every project (the token acts as her)' },
  { email: 'executor@demo.test', who: 'Egor Executor, who reads the interface in Russian (his Profile\'s "Language")' },
  { email: 'executor2@demo.test', who: 'Elena Executor' },
  { email: 'observer@demo.test', who: 'Oscar Observer: observer of the plant audit, executor on the fit-out' },
  { email: 'partial@demo.test', who: 'Pavel Partial: executor limited to part of the plant audit' },
  { email: DEMO_SUBCONTRACTOR, who: 'Sasha Sparks: subcontractor (Voltline Electrical) who sees only his company’s items on the fit-out' },
];

/**
 * On a database without users, loads the demo workspace and creates one token with every scope for the
 * demo manager (valid one year). Returns that raw token (shown once) and the manager's web sign-in;
 * null when the database already has users, so a second start prints nothing new.
 */
export async function loadDemoWorkspaceIfEmpty(ctx: AppContext): Promise<{ token: string; email: string; password: string } | null> {
  const anyUser = await ctx.db.kysely.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (anyUser) return null;
  const now = ctx.clock.now();
  await importFixture(ctx.db.kysely, ctx.db.dialect, demoFixture(now), ctx.clock);
  const story = storyClock(ctx.clock, now);
  try {
    await raisePunchList(ctx, (days) => new Date(now.getTime() + days * DAY).toISOString().slice(0, 10), story.on);
  } finally {
    story.restore();
  }
  const manager = await ctx.users.findByEmail(DEMO_EMAIL);
  if (!manager) throw new Error('the demo manager was not imported');
  // A foreman who works in his own language (docs/design.md §23): the banner says so.
  const foreman = await ctx.users.findByEmail(DEMO_FOREMAN);
  if (foreman) await ctx.users.setLanguage(foreman.id, 'ru');
  const { token } = await ctx.tokens.createToken({
    userId: manager.id,
    name: 'demo (all scopes)',
    scopes: [...SCOPES],
    expiresAt: new Date(now.getTime() + 365 * DAY),
  });
  return { token, email: DEMO_EMAIL, password: DEMO_PASSWORD };
}
