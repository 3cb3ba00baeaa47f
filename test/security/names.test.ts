import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { UserKey } from '../helpers/workspace.js';
import { signedInClients } from '../web/web-client.js';

/**
 * Names (issue 46): a user's, a project's, a section's, a checklist's, a token's and an OAuth client's refuse control
 * characters and the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which make a
 * name read as another ("Invoice‮fdp.exe"). The web answers 422 with the message beside the field and creates
 * nothing; OAuth registration answers RFC 7591's invalid_client_metadata. Scripts written right to left, and the
 * plain direction marks, stay welcome. The CLI's refusal is in test/cli/basics.test.ts.
 */
let server: TestServer;
const as = signedInClients(() => server.url);

async function submit(user: UserKey, pagePath: string, action: string, fields: Record<string, string>) {
  const web = await as(user);
  const page = await web.get(pagePath);
  return web.post(action, fields, page.text);
}

/** The names a probe would try: each direction control of the two ranges, and control characters. */
const REFUSED = [
  ['Invoice \u202Efdp.exe', 'U+202E'],
  ['A\u202AB', 'U+202A'],
  ['A\u202DB', 'U+202D'],
  ['\u2066Isolated', 'U+2066'],
  ['Pop\u2069', 'U+2069'],
  ['Two\nlines', 'U+000A'],
  ['Tab\there', 'U+0009'],
  ['Bell\u0007', 'U+0007'],
  ['C1 \u0085 next line', 'U+0085'],
  ['Line\u2028separator', 'U+2028'],
] as const;
const WELCOME = 'בדיקה \u200F工事 ✅ Ünïcode';

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('names refuse control characters and direction overrides', () => {
  it('a project: 422 with the message beside the name, nothing created; other scripts and direction marks are kept', async () => {
    const before = await server.ctx.db.kysely.selectFrom('projects').select('id').execute();
    for (const [name, code] of REFUSED) {
      const refused = await submit('admin', '/admin/projects', '/admin/projects', { name, description: '', deadline: '' });
      expect(refused.status, name).toBe(422);
      expect(refused.text).toContain(
        `<p class="field-error" id="new-project-name-error">must not contain control characters or text-direction overrides (found ${code})</p>`,
      );
      expect(refused.text).toMatch(/id="new-project-name"[^>]*aria-invalid="true"/);
    }
    expect(await server.ctx.db.kysely.selectFrom('projects').select('id').execute()).toEqual(before);
    const created = await submit('admin', '/admin/projects', '/admin/projects', { name: WELCOME, description: '', deadline: '' });
    expect(created.status).toBe(303);
    const projectId = Number(/^\/admin\/projects\/(\d+)/.exec(created.location!)![1]);
    const project = await server.ctx.db.kysely.selectFrom('projects').select('name').where('id', '=', projectId).executeTakeFirstOrThrow();
    expect(project.name).toBe(WELCOME);

    // Renaming it goes by the same rule.
    const renamed = await submit('admin', `/admin/projects/${projectId}`, `/admin/projects/${projectId}`, {
      name: 'Renamed\u202E',
      description: '',
      deadline: '',
    });
    expect(renamed.status).toBe(422);
    expect(renamed.text).toContain('id="project-name-error"');
  });

  it('a section and a checklist, added or renamed: 422 beside the name, nothing changed', async () => {
    const structurePage = '/projects/1/structure';
    const sectionsBefore = await server.ctx.db.kysely.selectFrom('sections').select(['id', 'name']).orderBy('id').execute();
    const checklistsBefore = await server.ctx.db.kysely.selectFrom('checklists').select(['id', 'name']).orderBy('id').execute();
    const section = sectionsBefore.find((s) => s.id === 10) ?? sectionsBefore[0]!;
    const checklist = checklistsBefore[0]!;
    for (const [name, code] of REFUSED.slice(0, 4)) {
      const added = await submit('admin', structurePage, '/projects/1/sections', { name });
      expect(added.status, name).toBe(422);
      expect(added.text).toContain(
        `id="new-section-name-error">must not contain control characters or text-direction overrides (found ${code})`,
      );
      const renamedSection = await submit('admin', structurePage, `/sections/${section.id}/rename`, { name });
      expect(renamedSection.status).toBe(422);
      const newChecklist = await submit('admin', structurePage, '/projects/1/checklists', { section: String(section.id), name });
      expect(newChecklist.status).toBe(422);
      const renamedChecklist = await submit('admin', structurePage, `/checklists/${checklist.id}/rename`, { name });
      expect(renamedChecklist.status).toBe(422);
      expect(renamedChecklist.text).toContain(`id="checklist-${checklist.id}-name-error"`);
    }
    expect(await server.ctx.db.kysely.selectFrom('sections').select(['id', 'name']).orderBy('id').execute()).toEqual(sectionsBefore);
    expect(await server.ctx.db.kysely.selectFrom('checklists').select(['id', 'name']).orderBy('id').execute()).toEqual(checklistsBefore);
  });

  it('a user made by an administrator: 422 beside "Full name", nobody created', async () => {
    for (const [name, code] of REFUSED.slice(0, 3)) {
      const refused = await submit('admin', '/admin/users', '/admin/users', {
        email: 'spoof@punchlist.test',
        name,
        role: 'member',
        password: '',
      });
      expect(refused.status, name).toBe(422);
      expect(refused.text).toContain(
        `<p class="field-error" id="user-name-error">must not contain control characters or text-direction overrides (found ${code})</p>`,
      );
      expect(refused.text).toMatch(/id="user-name"[^>]*aria-invalid="true"/);
    }
    expect(await server.ctx.users.findByEmail('spoof@punchlist.test')).toBeUndefined();
    const created = await submit('admin', '/admin/users', '/admin/users', {
      email: 'rtl@punchlist.test',
      name: WELCOME,
      role: 'member',
      password: '',
    });
    expect(created.status).toBe(303);
    expect((await server.ctx.users.findByEmail('rtl@punchlist.test'))?.name).toBe(WELCOME);
  });

  it('a token named in the Profile: 422, no token made', async () => {
    const count = async () => (await server.ctx.db.kysely.selectFrom('api_tokens').select('id').execute()).length;
    const before = await count();
    const refused = await submit('manager', '/profile', '/profile/tokens', { name: 'CRM \u2067sync', expiry: '30d', scopes: 'auth:me' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('must not contain control characters or text-direction overrides (found U+2067)');
    expect(await count()).toBe(before);
  });

  it('an OAuth client_name: invalid_client_metadata (RFC 7591), no client registered', async () => {
    const register = (client_name: string) =>
      server.call('/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name, redirect_uris: ['http://127.0.0.1:49152/cb'] }),
      });
    const before = (await server.ctx.db.kysely.selectFrom('oauth_clients').select('id').execute()).length;
    for (const [name, code] of [REFUSED[0], REFUSED[3], REFUSED[8]]) {
      const refused = await register(name);
      expect(refused.status, name).toBe(400);
      expect(refused.body.error).toBe('invalid_client_metadata');
      expect(refused.body.error_description).toMatch(/client_name/);
      if (code === 'U+202E' || code === 'U+2066') expect(refused.body.error_description).toContain(`(found ${code})`);
    }
    expect((await server.ctx.db.kysely.selectFrom('oauth_clients').select('id').execute()).length).toBe(before);
    const welcome = await register(WELCOME);
    expect(welcome.status).toBe(201);
    expect(welcome.body.client_name).toBe(WELCOME);
  });
});
