import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../shared/clock.js';
import type { AppContext } from '../composition/context.js';
import type { Actor } from '../domain/policy.js';
import type { UserRole } from '../domain/values.js';
import { SCOPES } from '../domain/scopes.js';
import { importFixture } from '../features/fixtures/import.service.js';

import {
  CLEARVIEW,
  DAY,
  DEMO_EMAIL,
  DEMO_FOREMAN,
  DEMO_PASSWORD,
  DEMO_SUBCONTRACTOR,
  demoFixture,
  STUCCOLINE,
  VOLTLINE,
} from './demo-fixture.js';

export { DEMO_EMAIL } from './demo-fixture.js';

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

/** The fit-out's people, as the services take them. */
interface DemoPeople {
  maria: Actor & { name: string };
  egor: Actor & { name: string };
  elena: Actor & { name: string };
  oscar: Actor & { name: string };
  alice: Actor & { name: string };
  sasha: Actor & { name: string };
}

/** What each step of the demo's story uses: the services, the dates, the clock's steps, the people, the photos. */
interface Walk {
  ctx: AppContext;
  date: (days: number) => string;
  on: (days: number, hours?: number) => void;
  people: DemoPeople;
  file: (name: string) => { originalName: string; path: string; size: number; oversized: boolean };
  photo: (name: string, caption?: string) => () => ReturnType<AppContext['attachments']['prepare']>;
}

/** The fit-out's defects, by what they are. */
interface Defects {
  crack: number;
  socket: number;
  glass: number;
  tile: number;
}

/**
 * The punch-list cycle on the fit-out project, through the same services as the web: the manager walks the
 * floor and raises defects with photos, executors work and answer, the manager reviews and returns one item
 * to rework. Every step is in the items' timelines, the audit-free service path (no request) and the event feed.
 */
async function raisePunchList(ctx: AppContext, date: (days: number) => string, on: (days: number, hours?: number) => void) {
  const walk = await startWalk(ctx, date, on);
  const defects = await raiseDefects(walk);
  await workOnDefects(walk, defects);
  await placeOnPlan(walk, defects);
  // docs/design.md §21: one template ships with the demo, for "New project" and "Add checklist from template".
  await ctx.templates.importTemplate(walk.people.alice, APARTMENT_HANDOVER);
}

async function startWalk(ctx: AppContext, date: (days: number) => string, on: (days: number, hours?: number) => void): Promise<Walk> {
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
  const photo = (name: string, caption?: string) => () => ctx.attachments.prepare([file(name)], caption ? { caption } : {});
  const people = { maria: maria!, egor: egor!, elena: elena!, oscar: oscar!, alice: alice!, sasha: sasha! };
  return { ctx, date, on, people, file, photo };
}

/** The manager walks the floor and raises the defects, with photos and the fit-out's vocabulary. */
async function raiseDefects({ ctx, date, on, people, photo }: Walk): Promise<Defects> {
  // docs/design.md §21: the fit-out's own vocabulary — trades as categories, severity and a cost estimate.
  on(-22, 9);
  const trades = await demoVocabulary(ctx, people.maria);
  const raise = (checklist: number, input: Parameters<AppContext['itemEdits']['createItem']>[2]) =>
    ctx.itemEdits.createItem(people.maria, checklist, input);

  on(-21, 9);
  const crack = await raise(300, {
    text: 'Crack in the plaster by the window, axis C',
    description: 'About 40 cm, from the window sill upwards. Check whether it is only the plaster.',
    participantIds: [people.egor.id],
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
    participantIds: [people.elena.id, people.oscar.id, people.sasha.id],
    priority: 'medium',
    deadline: date(-2),
    prepareImages: photo('socket.jpg'),
    vocabulary: trades.of('Electrical', 'minor', '25'),
    companyId: VOLTLINE,
  });
  on(-19, 14);
  const glass = await raise(310, {
    text: 'Scratched glass door, room 3.2',
    participantIds: [people.oscar.id],
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
    participantIds: [people.egor.id],
    priority: 'low',
    deadline: date(10),
    vocabulary: trades.of('Ceilings', 'minor', '40'),
    companyId: STUCCOLINE,
  });
  // Raised against the plasterers by mistake: Egor disputes it (docs/design.md §20), Maria has yet to resolve it.
  on(-11, 10);
  const tray = await raise(301, {
    text: 'Cable tray cover loose above desk row A',
    participantIds: [people.egor.id],
    priority: 'medium',
    deadline: date(6),
    vocabulary: trades.of('Electrical', 'minor', '15'),
    companyId: STUCCOLINE,
  });
  on(-10, 9);
  await ctx.itemDisputes.dispute(people.egor, tray, { reason: 'Not plastering: the cable tray is the electricians’ work.' });

  on(-14, 16);
  await raise(310, { text: 'Handover documents for the door closers', participantIds: [people.alice.id], deadline: date(14) });

  return { crack, socket, glass, tile };
}

/** Executors work and answer, the manager reviews and returns one item to rework. */
async function workOnDefects({ ctx, date, on, people, file, photo }: Walk, { crack, socket, glass, tile }: Defects): Promise<void> {
  on(-16, 8);
  await ctx.itemWrites.setStatus(people.egor, crack, 'in_progress');
  on(-16, 8.5);
  await ctx.comments.addComment(people.egor, crack, { text: 'Plasterer booked for Thursday; it is only the plaster layer.' });
  // Photos that show the defect (docs/design.md §22): the executor circles the crack on the manager's photo, then
  // answers with the photo of the fix; both stages side by side on the item page and in the report.
  on(-16, 9);
  const [crackPhoto] = (await ctx.items.getItemCard(people.egor, crack)).item.attachments;
  await ctx.attachments.markUp(people.egor, crackPhoto!.id, file('crack-marked.jpg'), {
    caption: 'Only the plaster layer is cracked (circled)',
    markupKey: 'demo-crack-markup',
  });
  on(-13, 17);
  await ctx.answers.addAnswer(people.egor, crack, {
    text: 'Crack raked out, filled and painted.',
    prepareImages: photo('crack-fixed.jpg', 'Filled, sanded and painted over'),
  });
  on(-12, 13);
  await ctx.itemWrites.setStatus(people.elena, socket, 'blocked');
  on(-12, 13.5);
  await ctx.comments.addComment(people.elena, socket, { text: 'Waiting for the covers from the supplier.' });
  on(-9, 15);
  await ctx.answers.addAnswer(people.egor, tile, { text: 'Tile replaced, the leak above was already fixed by the plumber.' });
  on(-9, 15.5);
  await ctx.itemWrites.setStatus(people.egor, tile, 'done');
  on(-6, 11);
  const { answer } = await ctx.answers.addAnswer(people.oscar, glass, { text: 'Glass polished, the scratch is gone.' });
  on(-6, 11.5);
  await ctx.itemWrites.setStatus(people.oscar, glass, 'done');
  on(-3, 10);
  await ctx.review.reviewAnswer(people.maria, answer.id, 'rejected');
  on(-3, 10.5);
  await ctx.review.returnToRework(people.maria, glass, {
    reason: 'The scratch is still visible in daylight: replace the pane.',
    deadline: date(3),
  });
}

async function placeOnPlan({ ctx, people }: Walk, { crack, socket, glass, tile }: Defects): Promise<void> {
  // Where each defect is: floor 3's plan (revision A), its items pinned, then revision B uploaded as the plan's
  // second version: every pin stays where it was.
  const floor = await uploadDemoPlan(ctx, people.maria, FIT_OUT, 'floor-3-rev-a.pdf', { name: 'Floor 3' });
  const places: [number, number, number][] = [
    [crack, 0.41, 0.14],
    [socket, 0.25, 0.58],
    [glass, 0.65, 0.45],
    [tile, 0.74, 0.52],
  ];
  for (const [item, x, y] of places) await ctx.itemLocations.placeItem(people.maria, item, { planId: floor, x, y });
  await uploadDemoPlan(ctx, people.maria, FIT_OUT, 'floor-3-rev-b.pdf', { planId: floor });
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
