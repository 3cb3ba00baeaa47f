import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { WebClient } from './web-client.js';

/**
 * The interface's language (docs/design.md §23) over HTTP: the browser's `Accept-Language` before sign-in and while
 * nothing is chosen, the Profile's "Language" after; `<html lang>` says which; an unknown language is English, never
 * an error; user content is shown as typed (never read as a message).
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const lang = (page: string) => /<html lang="([a-z]+)">/.exec(page)?.[1];

async function signedIn(user: keyof typeof USERS, acceptLanguage?: string) {
  const web = new WebClient(server.url, acceptLanguage ? { 'accept-language': acceptLanguage } : {});
  expect((await web.signIn(user)).status).toBe(303);
  return web;
}

describe('the language of the pages', () => {
  it("speaks the browser's language on the sign-in page, English for one it does not know", async () => {
    for (const [header, expected, button] of [
      [undefined, 'en', 'Sign in'],
      ['ru-RU,ru;q=0.9,en;q=0.8', 'ru', 'Войти'],
      ['de-AT', 'de', 'Anmelden'],
      ['xx-YY, tlh;q=0.9', 'en', 'Sign in'],
      ['q=;;,', 'en', 'Sign in'],
    ] as const) {
      const res = await new WebClient(server.url, header ? { 'accept-language': header } : {}).get('/login');
      expect(res.status, String(header)).toBe(200);
      expect(lang(res.text)).toBe(expected);
      expect(res.text).toContain(`<button type="submit">${button}</button>`);
      expect(res.headers.get('vary')).toMatch(/accept-language/i);
    }
  });

  it('follows the Profile\'s "Language" once chosen, whatever the browser asks; "As my browser asks" goes back', async () => {
    const web = await signedIn('observer', 'ru');
    let page = (await web.get('/projects')).text;
    expect(lang(page)).toBe('ru');
    expect(page).toContain('>Проекты</a>');
    expect(page).toContain('<button type="submit">Выйти</button>');
    const profile = (await web.get('/profile')).text;
    expect(profile).toMatch(/<select id="language" name="language"[^>]*>[\s\S]*<option value="de" lang="de" >Deutsch<\/option>/);
    const saved = await web.post('/profile/language', { language: 'de', _key: crypto.randomUUID() }, profile);
    expect(saved.status).toBe(303);
    page = (await web.get(saved.location!)).text;
    expect(lang(page)).toBe('de');
    expect(page).toContain('Ihre Sprache wurde gespeichert.');
    expect(page).toContain('<option value="de" lang="de" selected>Deutsch</option>');
    const row = await server.ctx.db.kysely
      .selectFrom('users')
      .select('language')
      .where('id', '=', USERS.observer)
      .executeTakeFirstOrThrow();
    expect(row.language).toBe('de');
    const back = await web.post('/profile/language', { language: '', _key: crypto.randomUUID() }, page);
    expect(back.status).toBe(303);
    expect(lang((await web.get('/projects')).text)).toBe('ru');
  });

  it("takes a language it does not speak as no choice (the browser's, else English), never an error", async () => {
    const web = await signedIn('bystander');
    const profile = (await web.get('/profile')).text;
    const saved = await web.post('/profile/language', { language: 'xx', _key: crypto.randomUUID() }, profile);
    expect(saved.status).toBe(303);
    expect(lang((await web.get('/projects')).text)).toBe('en');
    const row = await server.ctx.db.kysely
      .selectFrom('users')
      .select('language')
      .where('id', '=', USERS.bystander)
      .executeTakeFirstOrThrow();
    expect(row.language).toBeNull();
  });

  it('writes the dashboard in Russian with Russian plurals and numbers, and user content as typed', async () => {
    const name = "Корпус {count, plural, one {x} other {y}} '{'";
    await server.ctx.db.kysely.updateTable('projects').set({ name }).where('id', '=', 1).execute();
    const web = await signedIn('manager', 'ru');
    const page = (await web.get('/projects/1/dashboard')).text;
    expect(lang(page)).toBe('ru');
    expect(page).toMatch(/В этом проекте вам (виден \d+ пункт|видны \d+ пункта|видно \d+ пунктов)\./);
    expect(page).toContain('<h2>Пункты по статусам</h2>');
    expect(page).toContain(`Корпус {count, plural, one {x} other {y}} &#39;{&#39;`);
    expect(page).not.toMatch(/>(Items by status|Raised|Dashboard)</);
  });

  it('shows an item text with ICU syntax as typed on the project and item pages, in Russian and German', async () => {
    const text = "Трещина {count, plural, one {#} other {# шт}} у двери {x} '{' }";
    await server.ctx.db.kysely.updateTable('items').set({ text }).where('id', '=', 1001).execute();
    const escaped = text.replace(/'/g, '&#39;');
    for (const [header, words] of [
      ['ru', ['<th scope="col">Пункт</th>', '<span class="badge s-in_progress">в работе</span>', '>высокий<']],
      ['de', ['<th scope="col">Punkt</th>', '<span class="badge s-in_progress">in Arbeit</span>', '>hoch<']],
    ] as const) {
      const web = await signedIn('executor', header);
      const project = (await web.get('/projects/1')).text;
      expect(lang(project)).toBe(header);
      expect(project).toContain(`<a href="/items/1001">${escaped}</a>`);
      for (const word of words) expect(project).toContain(word);
      const item = (await web.get('/items/1001')).text;
      expect(item).toContain(`<h1>${escaped}</h1>`);
    }
    // English stays as it was: the same words, the plural by Intl ("1 item" would have been hand-made).
    const english = (await (await signedIn('executor')).get('/projects/1')).text;
    expect(english).toContain('<span class="badge s-in_progress">in progress</span>');
    expect(english).toContain('<th scope="col">Ball in court</th>');
  });
});
