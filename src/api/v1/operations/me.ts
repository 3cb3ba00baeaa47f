import { defineOperation, readErrors } from '../define-operation.js';
import { Identity } from '../schemas.js';
import { READ, strict } from './shared.js';

export const me = defineOperation({
  method: 'GET',
  path: '/auth/me.php',
  scope: 'auth:me',
  tag: 'auth',
  body: 'none',
  status: 200,
  summary: 'Who the token acts as, and its scopes',
  description:
    'The recommended first call: confirms that the token works, names the user it acts as and lists its scopes. ' +
    '`data.token.project_ids` lists the projects the token is limited to (null: every project the user can see). ' +
    '`meta.api_version` states the active API version (`v1`).',
  query: strict({}),
  data: Identity,
  errors: readErrors('validation_error'),
  examples: {
    data: {
      user: { id: 2, name: 'Maria Manager', role: 'member' },
      token: {
        id: 4,
        label: 'CRM sync',
        scopes: ['auth:me', 'projects:read', 'items:read'],
        expires_at: '2026-12-31T23:59:59.000Z',
        project_ids: null,
      },
      scopes: ['auth:me', 'projects:read', 'items:read'],
    },
  },
  handler: async ({ user, token }) => ({
    user: { id: user.id, name: user.name, role: user.role },
    token: { id: token.id, label: token.name, scopes: token.scopes, expires_at: token.expires_at, project_ids: token.project_ids },
    scopes: token.scopes,
  }),
  client: { positional: [] },
  mcp: {
    tool: 'whoami',
    title: 'Who am I (token check)',
    hints: READ,
    description:
      'Call this first. Confirms that the Punchlist API token works and returns the user it acts as (id, name, role), ' +
      'the token (label, expiry, the projects it is limited to) and its scopes. Every action is done as this user, with exactly their rights.',
  },
});
