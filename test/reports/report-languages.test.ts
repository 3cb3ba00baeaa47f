import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogs } from '../../src/i18n/i18n.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { signedInClients, type WebClient } from '../web/web-client.js';
import { pdfText } from './pdf-text.js';

/**
 * The PDF report in the reader's language (issue 45): the web session's, v1's token user's Profile choice (else
 * English as before); CSV unchanged. A project whose every user content is Cyrillic, so that any Latin word left in
 * a Russian report is one of the report's own words.
 */
let server: TestServer;
let projectId = 0;
const as = signedInClients(() => server.url);
const admin = { id: USERS.admin, role: 'admin' as const };

beforeAll(async () => {
  server = await startTestServer();
  const { ctx } = server;
  for (const [key, name] of [
    ['admin', 'Анна Админова'],
    ['manager', 'Мария Иванова'],
    ['executor', 'Пётр Петров'],
  ] as const)
    await ctx.db.kysely.updateTable('users').set({ name }).where('id', '=', USERS[key]).execute();
  projectId = await ctx.structure.createProject(admin, { name: 'Жилой дом', description: 'Приёмка второго этажа', deadline: '2030-06-30' });
  for (const [key, role] of [
    ['manager', 'manager'],
    ['executor', 'executor'],
  ] as const)
    await ctx.members.setMember(admin, projectId, { userId: USERS[key], role, limited: false, sectionIds: [], checklistIds: [] });
  const section = await ctx.structure.createSection(admin, projectId, 'Второй этаж');
  const checklist = await ctx.structure.createChecklist(admin, section, 'Электрика');
  const socket = await ctx.itemEdits.createItem(admin, checklist, {
    text: 'Розетка не закреплена',
    participantIds: [USERS.executor],
    priority: 'high',
    deadline: '2030-05-11',
  });
  await ctx.itemWrites.setStatus(admin, socket, 'in_progress');
  await ctx.answers.addAnswer({ ...admin, name: 'Анна Админова' }, socket, { text: 'Закреплено' });
  const crack = await ctx.itemEdits.createItem(admin, checklist, { text: 'Трещина в стене' });
  await ctx.itemWrites.setStatus(admin, crack, 'done');
  await ctx.review.setItemVerdict(admin, crack, 'accepted');
});
afterAll(() => server.close());

/** The Latin words of a text: a Russian report of Cyrillic content has none but the time zone's name. */
const latinWords = (text: string) => (text.match(/[A-Za-z]{2,}/g) ?? []).filter((w) => !['UTC', 'GMT'].includes(w));

async function download(web: WebClient, path: string): Promise<{ status: number; bytes: Uint8Array }> {
  const cookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(server.url + path, { headers: { cookie } });
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const setLanguage = (key: keyof typeof USERS, language: string | null) =>
  server.ctx.db.kysely.updateTable('users').set({ language }).where('id', '=', USERS[key]).execute();

describe('the PDF report in the reader’s language', () => {
  it('prints a Russian reader’s report in Russian from the web: labels, statuses, priorities, dates, footers', async () => {
    await setLanguage('manager', 'ru');
    const res = await download(await as('manager'), `/projects/${projectId}/report.pdf`);
    expect(res.status).toBe(200);
    const text = await pdfText(res.bytes);
    for (const expected of [
      'Перечень замечаний',
      'Срок: 30 июн. 2030 г.',
      'Решение: —',
      'Готовность: 50% (выполнено 1 из 2 пунктов)',
      'Разделов: 1 · Чек-листов: 1 · Пунктов: 2',
      'Ожидают: 0 · В работе: 1 · Выполнены: 1 · Заблокированы: 0',
      'Пунктов в отчёте: 2',
      'Статус: в работе · Приоритет: высокий · Срок: 11 мая 2030 г. · Ответов: 1',
      'Участники: Пётр Петров',
      'Последний ответ: Анна Админова',
      'на проверке, не проверен',
      'Решение: принято',
      'Стр. 1 · Жилой дом · составлен',
      'автор: Мария Иванова',
    ])
      expect(text, expected).toContain(expected);
    expect(latinWords(text)).toEqual([]);
  });

  it('names the filter in Russian, and the CSV keeps its English headers and machine values', async () => {
    const web = await as('manager');
    const pdf = await pdfText((await download(web, `/projects/${projectId}/report.pdf?status=in_progress&sort=deadline`)).bytes);
    expect(pdf).toContain('Пунктов в отчёте: 1 (фильтр: статус «в работе», сортировка: по сроку)');
    expect(latinWords(pdf)).toEqual([]);
    const csv = new TextDecoder().decode((await download(web, `/projects/${projectId}/report.csv`)).bytes);
    expect(csv.split('\n')[0]).toMatch(/^\uFEFF?item_id,/);
    expect(csv).toContain(',in_progress,high,2030-05-11,');
  });

  it('v1: the token user’s chosen language, else English exactly as before', async () => {
    const get = async (key: 'manager' | 'admin') => {
      const res = await server.request(`${V1}/projects/report.php?id=${projectId}&format=pdf`, { token: server.tokens[key] });
      expect(res.status).toBe(200);
      return pdfText(new Uint8Array(await res.arrayBuffer()));
    };
    expect(await get('manager')).toContain('Статус: в работе · Приоритет: высокий');
    const english = await get('admin');
    for (const expected of [
      'Punch list',
      'Deadline: 2030-06-30',
      'Progress: 50% (1 of 2 items done)',
      'Status: in progress · Priority: high · Deadline: 2030-05-11 · Answers: 1',
      'Participants: Пётр Петров',
      'Verdict: accepted',
      'Page 1 · Жилой дом · made',
    ])
      expect(english, expected).toContain(expected);
    // English's words are the only Latin ones: none of Russian's label words are left over, and no key shows.
    expect(english).not.toMatch(/report\.[a-z]/);
    expect(Object.keys(catalogs().en).filter((k) => k.startsWith('report.')).length).toBeGreaterThan(30);
  });
});
