import type { Actor } from '../../domain/policy.js';
import type { UserRole } from '../../domain/values.js';
import { notFound, validationError } from '../../errors.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import type { UsersService } from '../users/users.service.js';
import { assertAdmin } from './admin-guard.js';

import { MIN_PASSWORD_LENGTH } from '../users/users.service.js';

export { MIN_PASSWORD_LENGTH };

/** Users, for administrators: list, create, deactivate and reactivate. */
export function createUsersAdminService(deps: {
  users: UsersService;
  sessions: SessionsService;
  tokens: Pick<TokensService, 'forgetUser'>;
}) {
  const { users, sessions, tokens } = deps;
  return {
    async listUsers(actor: Actor) {
      assertAdmin(actor);
      return users.listUsers();
    },

    async createUser(actor: Actor, input: { email: string; name: string; role: string; password: string }) {
      assertAdmin(actor);
      if (input.password && input.password.length < MIN_PASSWORD_LENGTH) {
        throw validationError('password', `must be at least ${MIN_PASSWORD_LENGTH} characters (or empty: no web sign-in)`);
      }
      return users.createUser({ email: input.email, name: input.name, role: input.role as UserRole, password: input.password || null });
    },

    /**
     * Deactivation takes effect at once: the user's sessions end and their tokens answer 401 token_revoked
     * on the next call (token authentication checks the user, and this node's token cache forgets the
     * user's tokens). An admin cannot deactivate themself.
     */
    async setUserActive(actor: Actor, userId: number, active: boolean) {
      assertAdmin(actor);
      if (!active && userId === actor.id) throw validationError('user', 'you cannot deactivate your own account');
      if (!(await users.findById(userId))) throw notFound('The user');
      await users.setActive(userId, active);
      tokens.forgetUser(userId);
      if (!active) await sessions.endUserSessions(userId);
    },
  };
}

export type UsersAdminService = ReturnType<typeof createUsersAdminService>;
