import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogs } from '../../src/i18n/i18n.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { WebClient } from './web-client.js';

/**
 * The reasons of 422s beside form fields (docs/design.md §23): a web page says them in its language from the
 * reason's message key; v1 sends the same refusal as ever, English `field` and `message` only, whatever the
 * Accept-Language.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const keyOf = (page: string, action: string) => {
  const form = page.slice(page.indexOf(`action="${action}"`));
  return /name="_key" value="([^"]+)"/.exec(form)![1]!;
};

async function freshUser(email: string, acceptLanguage: string) {
  await server.ctx.users.createUser({ email, name: email.split('@')[0]!, password: 'first password 1' });
  const web = new WebClient(server.url, { 'accept-language': acceptLanguage });
  const login = await web.get('/login');
  expect((await web.post('/login', { email, password: 'first password 1' }, login.text)).status).toBe(303);
  return web;
}

async function postProfile(web: WebClient, action: string, fields: Record<string, string>) {
  const page = await web.get('/profile');
  return web.post(action, { _key: keyOf(page.text, action), ...fields }, page.text);
}

describe('a refused form field, in the page language', () => {
  it('says the password rules in Russian and German beside their fields, numbers and plurals by the language', async () => {
    const cases = [
      [
        'ru',
        { current_password: 'wrong password', new_password: 'second password 2', confirm_password: 'second password 2' },
        'current-password',
        'это не ваш текущий пароль',
      ],
      [
        'ru',
        { current_password: 'first password 1', new_password: 'short', confirm_password: 'short' },
        'new-password',
        'не менее 8 символов',
      ],
      [
        'de',
        { current_password: 'first password 1', new_password: 'second password 2', confirm_password: 'other' },
        'confirm-password',
        'stimmt nicht mit dem neuen Passwort überein',
      ],
    ] as const;
    for (const [language, fields, id, reason] of cases) {
      const web = await freshUser(`reasons-${language}-${id}@punchlist.test`, language);
      const refused = await postProfile(web, '/profile/password', fields);
      expect(refused.status, reason).toBe(422);
      expect(refused.text).toContain(`<p class="field-error" id="${id}-error">${reason}</p>`);
      expect(refused.text).not.toMatch(/is not your current password|must be at least|does not match/);
    }
  });

  it('keeps a name given as user content out of the message: the refused character named as the argument', async () => {
    const web = await freshUser('reasons-token@punchlist.test', 'ru');
    const refused = await postProfile(web, '/profile/tokens', { name: 'a\u202Eb', scopes: 'items:read', expiry: '30d' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('не может содержать управляющие символы и символы смены направления текста (найден U+202E)');
  });

  it('stays English in English, as it always read', async () => {
    const web = await freshUser('reasons-en@punchlist.test', 'en-GB');
    const refused = await postProfile(web, '/profile/password', {
      current_password: 'wrong password',
      new_password: 'second password 2',
      confirm_password: 'second password 2',
    });
    expect(refused.text).toContain('<p class="field-error" id="current-password-error">is not your current password</p>');
  });
});

describe("v1's refusals are unchanged", () => {
  it('sends only field and English message, whatever Accept-Language asks', async () => {
    for (const language of ['en', 'ru', 'de']) {
      const res = await server.call(`${V1}/items/links.php`, {
        token: server.tokens.manager,
        method: 'PUT',
        headers: { 'accept-language': language },
        json: { id: 1001, document_links: [{ title: 'Plan', url: 'ftp://example.test/plan' }] },
      });
      expect(res.status).toBe(422);
      expect(res.body.error.message).toBe('document_links[0].url: must be an absolute http or https URL');
      expect(res.body.error.details).toEqual([{ field: 'document_links[0].url', message: 'must be an absolute http or https URL' }]);
    }
  });

  it("writes every reason's English with its numbers ungrouped, as v1's texts were", () => {
    const english = catalogs().en;
    const reasons = Object.entries(english).filter(([key]) => key.startsWith('reason.'));
    expect(reasons.length).toBeGreaterThan(50);
    for (const [key, source] of reasons) {
      expect(source, key).not.toMatch(/\{max\}/);
    }
  });
});
