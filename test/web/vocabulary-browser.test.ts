import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite } from '../helpers/chromium.js';
import { V1 } from '../helpers/server.js';

/**
 * The project's vocabulary in a real Chromium at 390 px (docs/design.md §21): a manager adds a category and a choice
 * field on the structure page, raises an item with them, filters the project page by them and downloads the CSV
 * with their columns; switches the escalation ladder on; no horizontal scrolling; axe-core finds nothing serious or critical on the pages.
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const WAIT = { timeout: 60_000 };

const suite = browserSuite();

const fitsWidth = async (page: Page) => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

describe('categories and fields at 390 px', () => {
  it('a manager adds a category and a choice field, raises an item with them, filters by them, gets the CSV', async () => {
    const page = await suite.open('manager', PHONE, 45_000);
    await page.goto(`${suite.server.url}/projects/1/structure`);
    await fitsWidth(page);
    await page.getByLabel('Category name').fill('Electrical');
    await page.getByRole('button', { name: 'Add category' }).click();
    await page.getByText('The category was added.').waitFor(WAIT);
    await page.getByLabel('Field name').fill('Severity');
    await page.getByLabel('Field kind').selectOption('choice');
    await page.getByLabel('Options').fill('low\nhigh');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByText('The field was added.').waitFor(WAIT);
    await fitsWidth(page);

    await page.goto(`${suite.server.url}/projects/1/items/new`);
    await page.getByLabel('Text', { exact: true }).fill('Loose socket in the corridor');
    await page.getByLabel('Checklist').selectOption({ label: 'Fire' });
    await page.getByLabel('Category').selectOption({ label: 'Electrical' });
    await page.getByLabel('Severity (optional)').selectOption('high');
    await fitsWidth(page);
    await page.getByRole('button', { name: 'Create item' }).click();
    await page.waitForURL(/\/items\/\d+\?saved=created/, WAIT);
    const id = Number(/\/items\/(\d+)/.exec(page.url())![1]);
    const item = (await suite.server.call(`${V1}/items/get.php?id=${id}`, { token: suite.server.tokens.manager })).body.data.item;
    expect(item).toMatchObject({ category: 'Electrical', fields: { Severity: 'high' } });
    expect(await page.getByTestId('item-category').textContent()).toBe('Electrical');

    await page.goto(`${suite.server.url}/projects/1`);
    await page.getByLabel('Category', { exact: true }).selectOption({ label: 'Electrical' });
    await page.getByLabel('Severity', { exact: true }).selectOption('high');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/category=Electrical/, WAIT);
    expect(await page.getByTestId('item-row').count()).toBe(1);
    await fitsWidth(page);
    const csv = await page.request.get(`${suite.server.url}/projects/1/report.csv?category=Electrical&field.Severity=high`);
    const lines = (await csv.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]!.split(',').slice(-2)).toEqual(['category', 'Severity']);
    expect(lines).toHaveLength(2);
    expect(lines[1]!.split(',').slice(-2)).toEqual(['Electrical', 'high']);
    await page.context().close();
  });

  it('a manager switches the escalation ladder on at 390 px; a bad number is refused beside its field', async () => {
    const page = await suite.open('manager', PHONE, 45_000);
    await page.goto(`${suite.server.url}/projects/1/structure#escalation`);
    expect(await page.getByTestId('escalation-state').textContent()).toBe('Off: an overdue item is reminded of once.');
    await page.getByLabel('Escalate overdue items').check();
    await page.getByLabel('Every how many days while overdue').fill('3');
    // The browser's own check would stop 0 before it is sent: the server's refusal is what is tested here.
    await page.getByLabel('To the managers after how many days').evaluate((input) => input.removeAttribute('min'));
    await page.getByLabel('To the managers after how many days').fill('0');
    await page.getByRole('button', { name: 'Save escalation' }).click();
    await page.locator('#escalation-managers-error').waitFor(WAIT);
    expect(await page.locator('#escalation-managers-error').textContent()).toContain('must be a whole number of days from 1 to 365');
    expect(await page.getByLabel('Every how many days while overdue').inputValue()).toBe('3');
    await fitsWidth(page);
    await page.getByLabel('To the managers after how many days').fill('10');
    await page.getByRole('button', { name: 'Save escalation' }).click();
    await page.getByText('The escalation was saved.').waitFor(WAIT);
    expect(await page.getByTestId('escalation-state').textContent()).toBe('On: every 3 days while overdue, to the managers from day 10.');
    expect(await page.getByLabel('Escalate overdue items').isChecked()).toBe(true);
    await fitsWidth(page);
    await page.context().close();
  });

  it('has no serious or critical axe-core violation on the structure page and the item forms', async () => {
    const page = await suite.open('manager', { ...PHONE, bypassCSP: true } as typeof PHONE, 45_000);
    const problems: string[] = [];
    for (const path of ['/projects/1/structure', '/projects/1/items/new', '/items/1000', '/projects/1']) {
      await page.goto(suite.server.url + path);
      await page.addScriptTag({ path: AXE });
      const axe = await page.evaluate(async () => {
        const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
        return (result.violations as any[])
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.help} — ${(v.nodes as any[]).map((n) => JSON.stringify(n.target)).join(' ')}`);
      });
      problems.push(...axe.map((v) => `${path}: ${v}`));
    }
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });
});
