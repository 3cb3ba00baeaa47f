import { afterAll, beforeAll } from 'vitest';
import { SCOPES } from '../../src/domain/scopes.js';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { makeToken } from './factories.js';
import { startTestServer, type TestServer, V1 } from './server.js';
import { type UserKey, USERS } from './workspace.js';

/*
 * The harness of the v1 read tests (test/api/reads-*.test.ts): the standard workspace (test/helpers/workspace.ts),
 * plus, loaded by useReadsServer():
 * - user 60 "Checklister": executor of project 1 limited to checklist 201 only;
 * - user 61 "Sectioner": observer of project 1 limited to section 20 only;
 * - project 4 "Empty" (older created_at, no items), manager member;
 * - the outsider as a participant of item 2001 (participation alone grants nothing);
 * - a link of answer 7001, an image of item 1000 and one of answer 7000, a status change of item 1001.
 *
 * Project 1 items: section 10 → checklist 100 (1000 pending, 1001 in_progress), 101 (1010 done, 1011 blocked);
 * section 20 → checklist 200 (2000 done, 2001 pending), 201 (2010 pending).
 */
export const CHECKLISTER = 60;
export const SECTIONER = 61;
export type Who = UserKey | typeof CHECKLISTER | typeof SECTIONER;

/** Registers the file's server with the data above (made before its first test, closed after its last). */
export function useReadsServer() {
  // Filled in by the first hook: read them inside tests only.
  const server = {} as TestServer;
  const extraTokens: Record<number, string> = {};
  const images = { item: 0, answer: 0 };
  beforeAll(async () => {
    Object.assign(server, await startTestServer());
    const db = server.ctx.db.kysely;
    await importFixture(
      db,
      server.ctx.db.dialect,
      {
        users: [
          { id: CHECKLISTER, email: 'checklister@punchlist.test', name: 'Checklister' },
          { id: SECTIONER, email: 'sectioner@punchlist.test', name: 'Sectioner' },
        ],
        projects: [
          {
            id: 4,
            name: 'Empty',
            created_at: '2020-01-01T00:00:00.000Z',
            members: [{ user_id: USERS.manager, role: 'manager', sections: null, checklists: null }],
            sections: [{ id: 50, name: 'Nothing yet', checklists: [] }],
          },
        ],
      },
      server.ctx.clock,
    );
    const at = new Date().toISOString();
    const admin = { id: USERS.admin, role: 'admin' as const };
    await server.ctx.members.setMember(admin, 1, {
      userId: CHECKLISTER,
      role: 'executor',
      limited: true,
      sectionIds: [],
      checklistIds: [201],
    });
    await server.ctx.members.setMember(admin, 1, {
      userId: SECTIONER,
      role: 'observer',
      limited: true,
      sectionIds: [20],
      checklistIds: [],
    });
    for (const id of [CHECKLISTER, SECTIONER]) {
      extraTokens[id] = (await makeToken(server, { id }, SCOPES, { name: 'reads' })).token;
    }
    // Raw rows below: states the services refuse (a participant who is no member) or that need no real upload
    // (image rows with fixed sizes), and a link and a history entry at fixed times.
    await db.insertInto('item_participants').values({ item_id: 2001, user_id: USERS.outsider }).execute();
    await db
      .insertInto('document_links')
      .values({
        item_id: 1000,
        answer_id: 7001,
        kind: 'spreadsheet',
        title: 'Sheet',
        url: 'https://example.test/sheet',
        position: 0,
        created_at: at,
      })
      .execute();
    const image = (answerId: number | null, path: string) => ({
      item_id: 1000,
      answer_id: answerId,
      original_name: answerId ? 'scan.jpg' : 'photo.png',
      mime_type: 'image/webp',
      path,
      size: 1234,
      width: 32,
      height: 16,
      uploaded_by: USERS.executor,
      created_at: '2026-01-02T00:00:00.000Z',
    });
    images.item = (
      await db.insertInto('attachments').values(image(null, 'items/1000/a.webp')).returning('id').executeTakeFirstOrThrow()
    ).id;
    images.answer = (
      await db.insertInto('attachments').values(image(7000, 'answers/7000/b.webp')).returning('id').executeTakeFirstOrThrow()
    ).id;
    await db
      .insertInto('item_history')
      .values({
        item_id: 1001,
        kind: 'status_changed',
        from_status: 'pending',
        to_status: 'in_progress',
        user_id: USERS.manager,
        note: null,
        at: '2026-02-01T00:00:00.000Z',
      })
      .execute();
  });
  afterAll(async () => {
    await server.close?.();
  });
  const tokenOf = (who: Who) => (typeof who === 'number' ? extraTokens[who]! : server.tokens[who]);
  const get = (who: Who, path: string) => server.call(`${V1}${path}`, { token: tokenOf(who) });
  return { server, images, tokenOf, get };
}
