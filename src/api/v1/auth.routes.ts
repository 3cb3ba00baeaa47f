import { Type } from 'typebox';
import { Envelope, ok } from '../envelope.js';
import { Nullable } from './schemas.js';
import type { V1App } from './plugin.js';

const Identity = Type.Object({
  user: Type.Object({ id: Type.Integer(), name: Type.String(), role: Type.String() }),
  token: Type.Object({
    id: Type.Integer(),
    label: Type.String(),
    scopes: Type.Array(Type.String()),
    expires_at: Nullable(Type.String({ format: 'date-time' })),
  }),
  scopes: Type.Array(Type.String()),
});

export async function authRoutes(app: V1App) {
  app.get(
    '/auth/me.php',
    {
      config: { scope: 'auth:me' },
      schema: { summary: 'Who the token acts as, and its scopes', response: { 200: Envelope(Identity) } },
    },
    async (request) => {
      const { user, token } = request.principal!;
      return ok(request, {
        user: { id: user.id, name: user.name, role: user.role },
        token: { id: token.id, label: token.name, scopes: token.scopes, expires_at: token.expires_at },
        scopes: token.scopes,
      });
    },
  );
}
