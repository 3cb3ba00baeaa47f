import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { browserSuite } from '../helpers/chromium.js';

/**
 * The dashboards in a real Chromium at 390 px with touch (docs/design.md §23): the charts are drawn (an `svg`
 * with role "img" and a name, as wide as the phone), a tap on a bar opens the list it counts, and axe-core finds
 * nothing serious or critical on either dashboard.
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true };

const suite = browserSuite();

describe('the dashboard on a phone', () => {
  it('draws the charts within the screen, and a tap on a bar opens the list of the items it counts', async () => {
    const page = await suite.open('manager', PHONE, 45_000);
    await page.goto(suite.server.url + '/projects/1/dashboard');
    const chart = page.getByRole('img', { name: 'Items by status' });
    await expect.poll(() => chart.isVisible()).toBe(true);
    const box = (await chart.boundingBox())!;
    expect(box.width).toBeGreaterThan(200);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    const pending = page.locator('[data-testid="chart-status"] [data-href="/projects/1?status=pending"]');
    const counted = Number(await pending.getAttribute('data-value'));
    await pending.locator('rect').tap();
    await page.waitForURL('**/projects/1?status=pending');
    expect(await page.locator('[data-testid="item-row"]').count()).toBe(counted);
    await page.context().close();
  });

  it('has no serious or critical axe-core violation on either dashboard', async () => {
    const page = await suite.open('manager', PHONE, 45_000);
    const problems: string[] = [];
    for (const path of ['/dashboard', '/projects/1/dashboard']) {
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
