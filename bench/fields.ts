/**
 * bench:fields (docs/performance.md "Custom fields"): on a project of ITEMS items (default 5 000), each with a
 * category and two field values (a choice and a number), how long the project list filtered by a category or by a
 * choice field takes beside the same list filtered by status; and the indexed lookup of one option's items.
 * Runs on the suite's dialect (test/helpers/database.ts: SQLite, or PostgreSQL with PUNCHLIST_TEST_DB=postgres).
 */
import { performance } from 'node:perf_hooks';
import { createVocabularyRepository } from '../src/features/vocabulary/vocabulary.repository.js';
import { createTestContext, makeChecklist, makeProject, makeSection } from '../test/helpers/factories.js';

const ITEMS = Number(process.env.ITEMS ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 15);

const t = await createTestContext();
try {
  const { ctx, admin } = t;
  const project = await makeProject(t);
  const checklist = await makeChecklist(t, await makeSection(t, project));
  const trades = ['Electrical', 'Plumbing', 'Glazing', 'Plastering', 'Ceilings'];
  const categories: number[] = [];
  for (const trade of trades) categories.push(await ctx.vocabulary.addCategory(admin, project.id, trade));
  const severity = await ctx.vocabulary.addField(admin, project.id, {
    name: 'Severity',
    kind: 'choice',
    options: 'minor\nmajor\ncritical',
  });
  const cost = await ctx.vocabulary.addField(admin, project.id, { name: 'Cost estimate', kind: 'number' });
  const db = ctx.db.kysely;
  const at = new Date().toISOString();
  const statuses = ['pending', 'in_progress', 'done', 'blocked'];
  const levels = ['minor', 'major', 'critical'];
  for (let start = 0; start < ITEMS; start += 250) {
    const rows = Array.from({ length: Math.min(250, ITEMS - start) }, (_, k) => {
      const n = start + k;
      return {
        project_id: project.id,
        section_id: checklist.sectionId,
        checklist_id: checklist.id,
        text: `Item ${n}`,
        description: '',
        status: statuses[n % 4]!,
        priority: 'medium',
        deadline: null,
        requires_answer: 0,
        verdict: null,
        rework_reason: null,
        rework_deadline: null,
        position: n,
        category_id: categories[n % trades.length]!,
        created_at: at,
        updated_at: at,
      };
    });
    const ids = await db.insertInto('items').values(rows).returning('id').execute();
    await db
      .insertInto('item_field_values')
      .values(
        ids.flatMap(({ id }, k) => [
          {
            item_id: id,
            field_id: severity,
            project_id: project.id,
            text_value: null,
            number_value: null,
            date_value: null,
            option_value: levels[(start + k) % 3]!,
          },
          {
            item_id: id,
            field_id: cost,
            project_id: project.id,
            text_value: null,
            number_value: (start + k) * 1.5,
            date_value: null,
            option_value: null,
          },
        ]),
      )
      .execute();
  }
  const base = { status: null, mine: false, overdue: false, q: null, participant: null, sort: 'tree' as const };
  const cases = {
    'status=done': { ...base, status: 'done' as const },
    'category=Glazing': { ...base, category: 'Glazing' },
    'field.Severity=critical': { ...base, fields: { Severity: 'critical' } },
    'no filter': base,
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const results: Record<string, { ms: number; rows: number }> = {};
  for (const [name, filter] of Object.entries(cases)) {
    const times: number[] = [];
    let rows = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const started = performance.now();
      rows = (await ctx.worklists.filteredItems(admin, project.id, filter)).rows.length;
      times.push(performance.now() - started);
    }
    results[name] = { ms: Number(median(times).toFixed(1)), rows };
  }
  const lookup: number[] = [];
  let found = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const started = performance.now();
    found = (await createVocabularyRepository(ctx.db.kysely).itemsWithOption(severity, 'critical')).length;
    lookup.push(performance.now() - started);
  }
  results['index: Severity=critical ids'] = { ms: Number(median(lookup).toFixed(2)), rows: found };
  console.log(JSON.stringify({ dialect: ctx.db.dialect, items: ITEMS, rounds: ROUNDS, median: results }, null, 2));
} finally {
  await t.cleanup();
}
