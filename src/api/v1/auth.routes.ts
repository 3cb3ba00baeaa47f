import type { Handlers } from './operation-route.js';

export const authHandlers = (): Pick<Handlers, 'me'> => ({
  me: async ({ user, token }) => ({
    user: { id: user.id, name: user.name, role: user.role },
    token: { id: token.id, label: token.name, scopes: token.scopes, expires_at: token.expires_at },
    scopes: token.scopes,
  }),
});
