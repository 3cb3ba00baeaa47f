/**
 * bench:escalation (docs/notifications.md "The escalation ladder", docs/search.md "Custom field values"): on a
 * project of ITEMS items (default 5 000), each overdue with two participants and a text field value, with the
 * project's ladder on:
 *
 * - the scheduled pass that tells a step to everybody (2 × ITEMS participants and the manager: one notification
 *   each), and the next pass, which finds every step told and writes nothing;
 * - v1 search of a field value (selective: 1 % of the items; broad: every item) beside a search of the items' own
 *   text of the same selectivity.
 *
 * Runs on the suite's dialect (SQLite, or PostgreSQL with PUNCHLIST_TEST_DB=postgres). Not part of `npm test`.
 */
import { performance } from 'node:perf_hooks';
import { createTestClock, createTestContext, makeChecklist, makeMember, makeProject, makeSection } from '../test/helpers/factories.js';

const ITEMS = Number(process.env.ITEMS ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 15);

const clock = createTestClock('2030-03-20T09:00:00Z');
const t = await createTestContext({ clock });
try {
  const { ctx, admin } = t;
  const project = await makeProject(t);
  const checklist = await makeChecklist(t, await makeSection(t, project));
  const manager = await makeMember(t, project, 'manager');
  const [first, second] = [await makeMember(t, project, 'executor'), await makeMember(t, project, 'executor')];
  const ref = await ctx.vocabulary.addField(admin, project.id, { name: 'Location ref', kind: 'text' });
  const db = ctx.db.kysely;
  const at = clock.now().toISOString();
  for (let start = 0; start < ITEMS; start += 250) {
    const rows = Array.from({ length: Math.min(250, ITEMS - start) }, (_, k) => ({
      project_id: project.id,
      section_id: checklist.sectionId,
      checklist_id: checklist.id,
      text: (start + k) % 100 === 0 ? `Gap at riser ${start + k}` : `Item ${start + k}`,
      description: '',
      status: 'pending',
      priority: 'medium',
      deadline: '2030-03-10',
      requires_answer: 0,
      verdict: null,
      rework_reason: null,
      rework_deadline: null,
      position: start + k,
      created_at: at,
      updated_at: at,
    }));
    const ids = await db.insertInto('items').values(rows).returning('id').execute();
    await db
      .insertInto('item_participants')
      .values(ids.flatMap(({ id }) => [first, second].map((p) => ({ item_id: id, user_id: p.id }))))
      .execute();
    await db
      .insertInto('item_field_values')
      .values(
        ids.map(({ id }, k) => ({
          item_id: id,
          field_id: ref,
          project_id: project.id,
          text_value: (start + k) % 100 === 0 ? `Shaft X-${start + k}` : `Room ${start + k}`,
          number_value: null,
          date_value: null,
          option_value: null,
        })),
      )
      .execute();
  }
  await ctx.vocabulary.setEscalation(admin, project.id, { everyDays: 2, managersAfterDays: 7 });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;

  let started = performance.now();
  const told = await ctx.notifications.runScheduled();
  const firstPass = performance.now() - started;
  started = performance.now();
  const again = await ctx.notifications.runScheduled();
  const steadyPass = performance.now() - started;

  const searches: Record<string, string> = {
    'field value, 1 %': 'shaft x-',
    'item text, 1 %': 'riser',
    'field value, every item': 'room',
  };
  const search: Record<string, { p50: number; p95: number; total: number }> = {};
  for (const [name, q] of Object.entries(searches)) {
    const times: number[] = [];
    let total = 0;
    for (let r = 0; r < ROUNDS + 2; r++) {
      const begin = performance.now();
      total = (await ctx.projectSearch.searchProject(manager, project.id, { q, entityType: null, itemId: null, limit: 50, offset: 0 }))
        .total;
      if (r >= 2) times.push(performance.now() - begin);
    }
    search[name] = { p50: Number(median(times).toFixed(1)), p95: Number(p95(times).toFixed(1)), total };
  }
  console.log(
    JSON.stringify(
      {
        dialect: ctx.db.dialect,
        items: ITEMS,
        escalation: {
          firstPass: { ms: Math.round(firstPass), notifications: told.escalations },
          steadyPass: { ms: Math.round(steadyPass), notifications: again.escalations },
        },
        search,
      },
      null,
      2,
    ),
  );
} finally {
  await t.cleanup();
}
