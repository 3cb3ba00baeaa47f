import { createRequire } from 'node:module';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useBrowserWorkplace } from './browser-workplace.js';

/**
 * The item page as a workplace, in a real browser (Debian's Chromium, `apt-get install -y chromium`):
 * photos from the file input, answers with links and pictures, status with and without JavaScript, the
 * 390-pixel viewport and axe-core on the main pages, keyboard use, and the controls each role sees.
 * Every effect is checked through the v1 API. A missing browser fails these tests: it never skips them.
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const workplace = useBrowserWorkplace();
const { file, signedIn, v1Item } = workplace;

describe('the item page as a workplace, in a browser', () => {
  it('uploads photos from the file input, previews them first, shows thumbnails, and refuses a file that is not an image', async () => {
    const before = (await v1Item(1000)).attachments.length;
    const page = await signedIn('executor');
    await page.goto(workplace.server.url + '/items/1000');

    const input = page.getByLabel('Photos', { exact: true });
    expect(await input.getAttribute('multiple')).not.toBeNull();
    expect(await input.getAttribute('capture')).not.toBeNull();
    await input.setInputFiles([file('site-front.png'), file('site-back.jpg')]);
    // The script previews the chosen photos before anything is sent.
    const preview = page.locator('[data-preview-for="item-photos"] img');
    await expect.poll(() => preview.count()).toBe(2);
    expect(await preview.evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).src.slice(0, 5)))).toEqual(['blob:', 'blob:']);
    await expect.poll(() => preview.evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).naturalWidth > 0))).toBe(true);

    await page.getByRole('button', { name: 'Upload photos' }).click();
    await page.waitForURL('**/items/1000?saved=photos');
    expect(await page.getByRole('status').textContent()).toContain('The photos were added.');

    const item = await v1Item(1000);
    expect(item.attachments).toHaveLength(before + 2);
    const added = item.attachments.slice(-2);
    expect(added.map((a: any) => a.original_name).sort()).toEqual(['site-back.jpg', 'site-front.png']);
    for (const a of added) expect(a.mime_type).toBe('image/webp');

    // Thumbnails that link to the full-size image, which the browser really loads with the session.
    const materials = page.getByRole('region', { name: 'Documents and photos' });
    for (const a of added) {
      const img = materials.locator(`img[data-attachment-id="${a.id}"]`);
      expect(await img.getAttribute('alt')).toBe(a.original_name);
      const link = materials.locator(`a:has(img[data-attachment-id="${a.id}"])`);
      expect(await link.getAttribute('href')).toBe(a.url);
      await img.scrollIntoViewIfNeeded();
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(a.width);
      const full = await page.request.get(a.url);
      expect(full.status()).toBe(200);
      expect(full.headers()['content-type']).toContain('image/webp');
    }

    // A text file named .png: the page again, with the message at the photo form, and nothing stored.
    await page.getByLabel('Photos', { exact: true }).setInputFiles([file('site-front.png'), file('not-an-image.png')]);
    const refused = page.waitForResponse((r) => r.url().endsWith('/items/1000/photos'));
    await page.getByRole('button', { name: 'Upload photos' }).click();
    expect((await refused).status()).toBe(422);
    // The form is sent once the page has looked at the photos (offline.js scales big ones down): the page
    // answered is the one at the form's address.
    await page.waitForURL('**/items/1000/photos');
    await page.waitForLoadState();
    const form = page.locator('form#photos');
    const message = form.locator('.field-error, [role=alert]');
    expect(await message.count()).toBeGreaterThan(0);
    expect(await message.first().textContent()).toMatch(/image/i);
    expect(await message.first().isVisible()).toBe(true);
    // The message is beside the file input (in the same form, right before or after it) and, read by a screen reader, tied to it.
    const fieldInput = form.getByLabel('Photos', { exact: true });
    const describedBy = await fieldInput.getAttribute('aria-describedby');
    expect(describedBy, 'the file input should point at its message (aria-describedby)').toBeTruthy();
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toMatch(/image/i);
    expect(await fieldInput.getAttribute('aria-invalid')).toBe('true');
    expect((await v1Item(1000)).attachments).toHaveLength(before + 2);
    await page.context().close();
  });

  it('adds an answer with a document link and a picture, and keeps the typed answer when a link is refused', async () => {
    const before = (await v1Item(1000)).answers.length;
    const page = await signedIn('executor');
    await page.goto(workplace.server.url + '/items/1000');

    // Refused first: an address the browser accepts as a URL but that is not http(s).
    const rejectedText = `Checked all extinguishers, pressure fine ${Date.now()}`;
    await page.getByLabel('Answer', { exact: true }).fill(rejectedText);
    const links = page.locator('details', { has: page.locator('summary', { hasText: 'Document links for the answer' }) });
    await links.locator('summary').click();
    const firstLink = links.getByRole('group', { name: 'Link 1' });
    await firstLink.getByLabel('Title').fill('Inspection act');
    await firstLink.getByLabel('Address (https://…)').fill('ftp://files.example.test/act.pdf');
    const refused = page.waitForResponse((r) => r.url().endsWith('/items/1000/answers'));
    await page.getByRole('button', { name: 'Add answer' }).click();
    expect((await refused).status()).toBe(422);
    await page.waitForLoadState();
    expect(await page.getByLabel('Answer', { exact: true }).inputValue()).toBe(rejectedText);
    const url = page.locator('#answer-link-0-url');
    expect(await url.isVisible(), 'the links stay open so the message is seen').toBe(true);
    expect(await url.inputValue()).toBe('ftp://files.example.test/act.pdf');
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    const message = page.locator(`[id="${await url.getAttribute('aria-describedby')}"]`);
    expect(await message.isVisible()).toBe(true);
    expect(((await message.textContent()) ?? '').length).toBeGreaterThan(0);
    // The message follows the field it is about.
    expect(
      await url.evaluate(
        (el, id) => el.parentElement!.querySelector(`#${CSS.escape(id!)}`) !== null,
        await url.getAttribute('aria-describedby'),
      ),
    ).toBe(true);
    expect((await v1Item(1000)).answers).toHaveLength(before);

    // A link with an address but no title, in the second row: the links unfold with the message at its title.
    await page.goto(workplace.server.url + '/items/1000');
    await page.getByLabel('Answer', { exact: true }).fill(rejectedText);
    await links.locator('summary').click();
    await links.getByRole('group', { name: 'Link 2' }).getByLabel('Address (https://…)').fill('https://docs.example.test/untitled');
    await page.getByRole('button', { name: 'Add answer' }).click();
    await page.waitForLoadState();
    expect(await page.getByLabel('Answer', { exact: true }).inputValue()).toBe(rejectedText);
    const title = page.locator('#answer-link-1-title');
    expect(await title.isVisible(), 'the links stay open so the message is seen').toBe(true);
    expect(await title.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`[id="${await title.getAttribute('aria-describedby')}"]`).isVisible()).toBe(true);
    expect(await page.locator('#answer-link-1-url').inputValue()).toBe('https://docs.example.test/untitled');
    expect((await v1Item(1000)).answers).toHaveLength(before);

    // Now a good one: text, a link, one picture.
    await page.goto(workplace.server.url + '/items/1000');
    await links.locator('summary').click();
    const text = `Replaced two extinguishers ${Date.now()}`;
    await page.getByLabel('Answer', { exact: true }).fill(text);
    await firstLink.getByLabel('Title').fill('Inspection act');
    await url.fill('https://docs.example.test/act-17');
    await page.getByLabel('Pictures (optional)').setInputFiles(file('answer-proof.png'));
    await expect.poll(() => page.locator('[data-preview-for="answer-photos"] img').count()).toBe(1);
    await page.getByRole('button', { name: 'Add answer' }).click();
    await page.waitForURL('**/items/1000?saved=answer');

    const answers = (await v1Item(1000)).answers;
    expect(answers).toHaveLength(before + 1);
    const answer = answers.find((a: any) => a.text === text);
    expect(answer).toMatchObject({ status: 'pending', author: { name: 'Executor' } });
    expect(answer.document_links).toMatchObject([{ title: 'Inspection act', url: 'https://docs.example.test/act-17', kind: 'document' }]);
    expect(answer.attachments).toHaveLength(1);
    expect(answer.attachments[0]).toMatchObject({ original_name: 'answer-proof.png', mime_type: 'image/webp', width: 40 });
    const shown = page.locator(`[data-answer-id="${answer.id}"]`);
    expect(await shown.locator('.text').textContent()).toBe(text);
    expect(await shown.getByRole('link', { name: 'Inspection act' }).getAttribute('href')).toBe('https://docs.example.test/act-17');
    expect(await shown.locator('img').count()).toBe(1);
    await page.context().close();
  });

  it('saves the status in the background with JavaScript, without a full page reload', async () => {
    const page = await signedIn('executor');
    await page.goto(workplace.server.url + '/items/1001');
    expect(await page.getByTestId('item-status').textContent()).toBe('in progress');
    // A full reload would load a document again (history.replaceState alone loads nothing).
    let documents = 0;
    page.on('request', (request) => {
      if (request.isNavigationRequest()) documents++;
    });
    await page.evaluate(() => ((window as any).stillThisDocument = true));

    await page.getByLabel('Status', { exact: true }).selectOption('blocked');
    const saved = page.waitForResponse((r) => r.url().endsWith('/items/1001/status') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Save status' }).click();
    expect((await saved).status()).toBe(303);
    await expect.poll(() => page.getByTestId('item-status').textContent()).toBe('blocked');
    expect(await page.getByRole('status').textContent()).toContain('The status was saved.');
    expect(await page.evaluate(() => (window as any).stillThisDocument)).toBe(true);
    expect(documents).toBe(0);
    expect(await page.getByLabel('Status', { exact: true }).inputValue()).toBe('blocked');
    expect((await v1Item(1001)).status).toBe('blocked');
    // The timeline shows the change with the user.
    expect(await page.getByTestId('timeline-entry').last().textContent()).toMatch(/Executor changed the status/);
    await page.context().close();
  });

  it('saves the status with a plain form post when JavaScript is off', async () => {
    const page = await signedIn('executor', { javaScriptEnabled: false });
    await page.goto(workplace.server.url + '/items/1001');
    const before = (await v1Item(1001)).status;
    const next = before === 'pending' ? 'in_progress' : 'pending';
    await page.getByLabel('Status', { exact: true }).selectOption(next);
    const post = page.waitForResponse((r) => r.url().endsWith('/items/1001/status') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Save status' }).click();
    expect((await post).status()).toBe(303);
    await page.waitForURL('**/items/1001?saved=status');
    expect(await page.getByTestId('item-status').textContent()).toBe(next.replace('_', ' '));
    expect(await page.getByRole('status').textContent()).toContain('The status was saved.');
    expect((await v1Item(1001)).status).toBe(next);
    await page.context().close();
  });

  describe('works at a 390-pixel viewport and has no serious or critical axe-core violation', () => {
    const PHONE_WIDTH = 390;
    const PAGES = ['/projects', '/projects/1', '/projects/1/report?status=pending', '/items/1000', '/my-items', '/profile'];
    // The punch-list cycle's pages (docs/design.md §14): for those who structure and review.
    const MANAGER_PAGES = ['/projects/1/items/new', '/projects/1/structure', '/review'];
    const VIEWPORTS = {
      phone: { viewport: { width: PHONE_WIDTH, height: 844 }, isMobile: true, hasTouch: true },
      desktop: { viewport: { width: 1280, height: 800 } },
    } satisfies Record<string, BrowserContextOptions>;

    // Up to 18 pages with axe each: minutes on a busy machine, not the default 30 s.
    for (const user of ['manager', 'executor'] as const) {
      it(`as the ${user}`, async () => {
        const problems: string[] = [];
        for (const [name, options] of Object.entries(VIEWPORTS)) {
          // bypassCSP: the page's Content-Security-Policy (script-src 'self') refuses the inline script that
          // addScriptTag({ path }) injects; only these axe checks bypass it, every other test runs under the CSP.
          const page = await signedIn(user, { ...options, bypassCSP: true });
          for (const path of user === 'manager' ? [...PAGES, ...MANAGER_PAGES] : PAGES) {
            const response = await page.goto(workplace.server.url + path);
            expect(response?.status(), `${path} as the ${user}`).toBe(200);
            await page.waitForLoadState('load');

            if (name === 'phone') {
              // A phone browser widens its layout viewport to fit content that overflows (innerWidth grows past
              // 390 and the page is zoomed out), so everything is measured against the device's 390 px.
              const overflow = await page.evaluate((width) => {
                // Folded forms (document links, answer pictures) are measured unfolded too.
                document.querySelectorAll('details').forEach((d) => (d.open = true));
                // A field squeezed to a sliver is as unusable as one that overflows.
                const narrow = [
                  ...document.querySelectorAll(
                    'main input[type=text], main input[type=url], main input[type=search], main textarea, main select',
                  ),
                ]
                  .filter((el) => {
                    const r = el.getBoundingClientRect();
                    return r.width > 0 && r.width < 120;
                  })
                  .map((el) => `${el.tagName.toLowerCase()}#${el.id} (${Math.round(el.getBoundingClientRect().width)} px)`);
                const wide = [...document.querySelectorAll('body *')]
                  .filter((el) => {
                    const r = el.getBoundingClientRect();
                    return r.width > 0 && r.height > 0 && (r.right > width + 1 || r.width > width + 1);
                  })
                  .map(
                    (el) =>
                      `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${el.className && typeof el.className === 'string' ? '.' + el.className.trim().replace(/\s+/g, '.') : ''} (right ${Math.round(el.getBoundingClientRect().right)})`,
                  );
                return {
                  scroll: document.documentElement.scrollWidth,
                  inner: window.innerWidth,
                  wide: wide.slice(0, 10),
                  narrow: narrow.slice(0, 10),
                };
              }, PHONE_WIDTH);
              if (overflow.scroll > PHONE_WIDTH || overflow.inner > PHONE_WIDTH || overflow.wide.length) {
                problems.push(
                  `${name} ${path}: scrollWidth ${overflow.scroll}, innerWidth ${overflow.inner} (viewport ${PHONE_WIDTH}); too wide: ${overflow.wide.join(', ')}`,
                );
              }
              if (overflow.narrow.length) problems.push(`${name} ${path}: fields squeezed below 120 px: ${overflow.narrow.join(', ')}`);
            }

            await page.addScriptTag({ path: AXE });
            const axe = await page.evaluate(async () => {
              const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
              return {
                rules: (result.passes as unknown[]).length + (result.violations as unknown[]).length,
                violations: (result.violations as any[])
                  .filter((v) => v.impact === 'serious' || v.impact === 'critical')
                  .map((v) => `${v.id} (${v.impact}): ${v.help} — ${(v.nodes as any[]).map((n) => JSON.stringify(n.target)).join(' ')}`),
              };
            });
            expect(axe.rules, `axe-core really checked ${path}`).toBeGreaterThan(20);
            for (const v of axe.violations) problems.push(`${name} ${path}: ${v}`);
          }
          await page.context().close();
        }
        expect(problems, problems.join('\n')).toEqual([]);
      }, 120_000);
    }
  });

  it('is usable with the keyboard: the skip link comes first, a comment is added with Tab and Enter', async () => {
    const page = await signedIn('executor');
    await page.goto(workplace.server.url + '/items/1000');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');

    const text = `Typed with the keyboard ${Date.now()}`;
    await page.getByLabel('Comment', { exact: true }).focus();
    await page.keyboard.type(text);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Add comment');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/items/1000?saved=comment');
    expect(await page.getByTestId('comment').last().textContent()).toContain(text);
    const comments = (await v1Item(1000)).comments;
    expect(comments.at(-1)).toMatchObject({ text, author: { name: 'Executor' } });
    await page.context().close();
  });

  describe('shows only the controls the user may use', () => {
    // includeHidden: controls folded into a closed <details> count too.
    const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true, includeHidden: true }).count();
    const controls = async (page: Page) => ({
      'Save status': await button(page, 'Save status'),
      'Save planning': await button(page, 'Save planning'),
      'Add comment': await button(page, 'Add comment'),
      'Add answer': await button(page, 'Add answer'),
      'Upload photos': await button(page, 'Upload photos'),
      Photos: await page.getByLabel('Photos', { exact: true }).count(),
      'Save links': await button(page, 'Save links'),
      'Save verdict': await button(page, 'Save verdict'),
      'Return to rework': await button(page, 'Return to rework'),
      Approve: await button(page, 'Approve'),
      Reject: await button(page, 'Reject'),
    });

    it('the observer may only comment, and a status posted anyway is refused', async () => {
      const page = await signedIn('observer');
      await page.goto(workplace.server.url + '/items/1000');
      expect(await controls(page)).toEqual({
        'Save status': 0,
        'Save planning': 0,
        'Add comment': 1,
        'Add answer': 0,
        'Upload photos': 0,
        Photos: 0,
        'Save links': 0,
        'Save verdict': 0,
        'Return to rework': 0,
        Approve: 0,
        Reject: 0,
      });
      const before = (await v1Item(1000)).status;
      const csrf = await page.locator('form#comment input[name="_csrf"]').inputValue();
      const refused = await page.request.post(workplace.server.url + '/items/1000/status', {
        form: { _csrf: csrf, status: before === 'done' ? 'blocked' : 'done' },
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(403);
      expect((await v1Item(1000)).status).toBe(before);
      await page.context().close();
    });

    it('the bystander (an executor, not a participant) may comment but not work on the item', async () => {
      const page = await signedIn('bystander');
      await page.goto(workplace.server.url + '/items/1000');
      const seen = await controls(page);
      expect(seen).toMatchObject({
        'Add comment': 1,
        'Save status': 0,
        'Upload photos': 0,
        Photos: 0,
        'Add answer': 0,
        'Save planning': 0,
        'Save verdict': 0,
        Approve: 0,
      });
      await page.context().close();
    });

    it('the manager sees every control, review included', async () => {
      const page = await signedIn('manager');
      await page.goto(workplace.server.url + '/items/1000');
      const seen = await controls(page);
      for (const [name, count] of Object.entries(seen)) expect(count, name).toBeGreaterThan(0);
      expect(await page.getByLabel('Status', { exact: true }).count()).toBe(1);
      await page.context().close();
    });
  });
});
