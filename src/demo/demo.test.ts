import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../shared/config.js';
import { type AppContext, createContext } from '../composition/context.js';
import { verifyPassword } from '../domain/passwords.js';
import { SCOPES } from '../domain/scopes.js';
import { ANSWER_STATUSES, ITEM_STATUSES, PRIORITIES } from '../domain/values.js';
import { DEMO_EMAIL, DEMO_SIGN_INS, loadDemoWorkspaceIfEmpty } from './demo.js';

let dir: string;
let ctx: AppContext;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punchlist-demo-'));
  ctx = await createContext(
    loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, STORAGE_URL: `file:${join(dir, 'storage')}`, DATA_DIR: dir }),
  );
});

afterAll(async () => {
  await ctx?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('loadDemoWorkspaceIfEmpty', () => {
  it('loads the demo into an empty database and returns a working all-scope token, then null', async () => {
    const demo = await loadDemoWorkspaceIfEmpty(ctx);
    expect(demo).not.toBeNull();
    const { token, email, password } = demo!;
    expect(token).toMatch(/^plk_[0-9A-Za-z]{36}$/);

    const principal = await ctx.tokens.authenticate(token, '127.0.0.1');
    expect(principal.user.email).toBe(email);
    expect([...principal.token.scopes].sort()).toEqual([...SCOPES].sort());
    expect(principal.token.expires_at === null || principal.token.expires_at > new Date().toISOString()).toBe(true);

    const user = await ctx.users.findByEmail(email);
    expect(await verifyPassword(password, user?.password_hash ?? null)).toBe(true);

    expect(await loadDemoWorkspaceIfEmpty(ctx)).toBeNull();
    const tokens = await ctx.db.kysely.selectFrom('api_tokens').select('id').execute();
    expect(tokens).toHaveLength(1);
  });

  it('spreads its history over the past weeks: the timelines, comments, answers, reviews and events are not all of today', async () => {
    const db = ctx.db.kysely;
    const now = Date.now();
    const day = (at: string) => at.slice(0, 10);
    const rows = {
      history: await db.selectFrom('item_history').select('at').execute(),
      comments: await db.selectFrom('comments').select('created_at as at').execute(),
      answers: await db.selectFrom('answers').select('created_at as at').execute(),
      reviews: await db.selectFrom('answer_reviews').select('at').execute(),
      events: await db.selectFrom('events').select('at').execute(),
      items: await db.selectFrom('items').select('created_at as at').execute(),
    };
    for (const [kind, list] of Object.entries(rows)) {
      const times = list.map((r) => Date.parse(r.at));
      expect(times.length, kind).toBeGreaterThan(0);
      // Nothing in the future, and not all of one day.
      expect(Math.max(...times), kind).toBeLessThanOrEqual(now);
      if (list.length > 1) expect(new Set(list.map((r) => day(r.at))).size, kind).toBeGreaterThan(1);
      expect(list.filter((r) => day(r.at) !== day(new Date(now).toISOString())).length, kind).toBeGreaterThan(0);
    }
    // The fit-out's story (raised through the services) runs over three weeks, in order, up to a few days ago.
    const events = rows.events.map((r) => Date.parse(r.at)).sort((a, b) => a - b);
    expect(events.length).toBeGreaterThanOrEqual(10);
    expect((events.at(-1)! - events[0]!) / 86_400_000).toBeGreaterThanOrEqual(14);
    expect(new Set(rows.events.map((r) => day(r.at))).size).toBeGreaterThanOrEqual(6);
    expect(now - events.at(-1)!).toBeGreaterThan(86_400_000);
    const fitOut = await db.selectFrom('items').select(['created_at', 'updated_at']).where('project_id', '=', 3).execute();
    for (const item of fitOut) expect(Date.parse(item.updated_at)).toBeGreaterThanOrEqual(Date.parse(item.created_at));
    // The clock is the real one again afterwards.
    expect(Math.abs(ctx.clock.now().getTime() - Date.now())).toBeLessThan(5_000);
  });

  it('covers what the demos need: roles, partial access, every status, priority and review state', async () => {
    const db = ctx.db.kysely;
    const users = await db.selectFrom('users').select(['role']).execute();
    expect(users.some((u) => u.role === 'admin')).toBe(true);
    const members = await db.selectFrom('project_members').selectAll().execute();
    expect(new Set(members.map((m) => m.role))).toEqual(new Set(['manager', 'executor', 'observer']));
    expect(members.some((m) => m.section_ids !== null && m.checklist_ids !== null)).toBe(true);

    const projects = await db.selectFrom('projects').select(['archived']).execute();
    expect(projects.length).toBeGreaterThanOrEqual(2);
    expect(projects.some((p) => Boolean(p.archived))).toBe(true);

    const items = await db.selectFrom('items').select(['text', 'status', 'priority', 'deadline', 'requires_answer']).execute();
    expect(new Set(items.map((i) => i.status))).toEqual(new Set(ITEM_STATUSES));
    expect(new Set(items.map((i) => i.priority))).toEqual(new Set(PRIORITIES));
    expect(items.some((i) => i.deadline !== null)).toBe(true);
    expect(items.some((i) => i.requires_answer)).toBe(true);
    expect(items.some((i) => i.text === 'Проверка документов')).toBe(true);

    const answers = await db.selectFrom('answers').select(['status']).execute();
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set(ANSWER_STATUSES));
    const links = await db.selectFrom('document_links').select(['answer_id']).execute();
    expect(links.some((l) => l.answer_id === null)).toBe(true);
    expect(links.some((l) => l.answer_id !== null)).toBe(true);
    expect(await db.selectFrom('comments').select('id').execute()).not.toHaveLength(0);
    expect(await db.selectFrom('item_participants').select('item_id').execute()).not.toHaveLength(0);
  });

  it('shows the punch-list cycle: items raised with photos, an answer to review, a return to rework, something for everyone', async () => {
    const db = ctx.db.kysely;
    const events = await db.selectFrom('events').select(['type']).execute();
    for (const type of [
      'item.created',
      'item.status_changed',
      'comment.created',
      'answer.created',
      'answer.reviewed',
      'item.returned_to_rework',
    ]) {
      expect(events.map((e) => e.type)).toContain(type);
    }
    expect((await db.selectFrom('attachments').select('id').execute()).length).toBeGreaterThanOrEqual(3);
    for (const { email } of DEMO_SIGN_INS) {
      const user = (await ctx.users.findByEmail(email))!;
      const actor = { id: user.id, role: user.role as 'admin' | 'member' };
      const mine = await ctx.worklists.myItems(actor, 1);
      expect(mine.total, `${email}: My items`).toBeGreaterThan(0);
      expect((await ctx.projects.listProjects(actor, { archived: 'active', limit: 50, offset: 0 })).total, email).toBeGreaterThan(0);
    }
    const manager = (await ctx.users.findByEmail(DEMO_EMAIL))!;
    const queue = await ctx.worklists.reviewQueue({ id: manager.id, role: 'member' }, 1);
    expect(queue.rows.some((r) => r.kind === 'answer')).toBe(true);
    expect(queue.rows.some((r) => r.kind === 'verdict')).toBe(true);
  });

  it('signs one foreman in Russian, and the banner says which (docs/design.md §23)', async () => {
    const foreman = DEMO_SIGN_INS.find((s) => s.who.includes('Russian'))!;
    const row = await ctx.db.kysely.selectFrom('users').select('language').where('email', '=', foreman.email).executeTakeFirstOrThrow();
    expect(row.language).toBe('ru');
    const others = await ctx.db.kysely.selectFrom('users').select('language').where('email', '!=', foreman.email).execute();
    expect(others.every((u) => u.language === null)).toBe(true);
  });

  it('pins the fit-out punch list on a floor plan whose second version keeps the pins', async () => {
    const manager = (await ctx.users.findByEmail(DEMO_EMAIL))!;
    const { plans } = await ctx.plans.listPlans({ id: manager.id, role: 'member' }, 3);
    expect(plans.map((p) => [p.name, p.version, p.versions.length])).toEqual([['Floor 3', 2, 2]]);
    expect(plans[0]!.pins).toHaveLength(4);
    const events = await ctx.db.kysely.selectFrom('events').select('type').where('type', 'like', 'plan.%').execute();
    expect(events.map((e) => e.type).sort()).toEqual(['plan.created', 'plan.version_added']);
  });

  it('gives the fit-out trades as categories, severity and cost estimate, its escalation ladder, and ships the "Apartment handover" template', async () => {
    const manager = (await ctx.users.findByEmail(DEMO_EMAIL))!;
    const tree = await ctx.projects.getTree({ id: manager.id, role: 'member' }, 3);
    const items = tree.sections.flatMap((s) => s.checklists).flatMap((c) => c.items);
    const crack = items.find((i) => i.text.startsWith('Crack in the plaster'))!;
    expect(crack).toMatchObject({ category: 'Plastering', fields: { Severity: 'major', 'Cost estimate': '350' } });
    expect(items.filter((i) => i.fields.Severity !== undefined).length).toBeGreaterThanOrEqual(4);
    expect((await ctx.templates.list()).map((t) => t.name)).toEqual(['Apartment handover']);
    expect(await ctx.vocabulary.escalationOf({ id: manager.id, role: 'member' }, 3)).toEqual({ everyDays: 2, managersAfterDays: 7 });
  });

  it('has three companies holding the fit-out’s items, one disputed item, and a subcontractor who sees only his company’s (docs/design.md §20)', async () => {
    expect((await ctx.companies.listCompanies()).map((c) => c.name)).toEqual([
      'ClearView Glazing',
      'Stuccoline Plastering',
      'Voltline Electrical',
    ]);
    const manager = (await ctx.users.findByEmail(DEMO_EMAIL))!;
    const tree = await ctx.projects.getTree({ id: manager.id, role: 'member' }, 3);
    const items = tree.sections.flatMap((s) => s.checklists).flatMap((c) => c.items);
    const held = new Set(items.flatMap((i) => (i.responsible_company ? [i.responsible_company.name] : [])));
    expect([...held].sort()).toEqual(['ClearView Glazing', 'Stuccoline Plastering', 'Voltline Electrical']);
    const disputed = await ctx.db.kysely.selectFrom('items').select(['id', 'dispute_reason']).where('dispute_at', 'is not', null).execute();
    expect(disputed).toHaveLength(1);
    const queue = await ctx.worklists.reviewQueue({ id: manager.id, role: 'member' }, 1);
    expect(queue.rows.some((r) => r.kind === 'dispute' && r.item_id === disputed[0]!.id)).toBe(true);

    const banner = DEMO_SIGN_INS.find((s) => s.who.includes('subcontractor'))!;
    const sasha = (await ctx.users.findByEmail(banner.email))!;
    const seen = await ctx.projects.getTree({ id: sasha.id, role: 'member' }, 3);
    const his = seen.sections.flatMap((s) => s.checklists).flatMap((c) => c.items);
    expect(his.length).toBeGreaterThan(0);
    expect(his.every((i) => i.responsible_company?.name === 'Voltline Electrical')).toBe(true);
    expect(his.length).toBe(items.filter((i) => i.responsible_company?.name === 'Voltline Electrical').length);
  });
});
