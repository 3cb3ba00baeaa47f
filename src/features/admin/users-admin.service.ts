import type { Actor } from '../../domain/policy.js';
import type { UserRole } from '../../domain/values.js';
import { notFound } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { RecordAudit } from '../audit/audit.service.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import type { UsersService } from '../users/users.service.js';
import { assertAdmin } from './admin-guard.js';

/** A user account as the admin's list shows it. */
export interface UserAccount {
  id: number;
  email: string;
  name: string;
  role: string;
  active: number;
  created_at: string;
}

/** Users, for administrators: list, create, deactivate and reactivate. */
export function createUsersAdminService(deps: {
  users: UsersService;
  sessions: SessionsService;
  tokens: Pick<TokensService, 'forgetUser'>;
}) {
  const { users, sessions, tokens } = deps;
  return {
    async listUsers(actor: Actor): Promise<UserAccount[]> {
      assertAdmin(actor);
      return users.listUsers();
    },

    /** An empty password: a user who cannot sign in to the web; any other follows the users service's rule. */
    async createUser(actor: Actor, input: { email: string; name: string; role: string; password: string }, recordAudit?: RecordAudit) {
      assertAdmin(actor);
      return users.createUser(
        { email: input.email, name: input.name, role: input.role as UserRole, password: input.password || null },
        recordAudit,
      );
    },

    /**
     * Deactivation takes effect at once: the user's sessions end in the same transaction and their tokens
     * answer 401 token_revoked on the next call (token authentication checks the user, and this node's token
     * cache forgets the user's tokens). An admin cannot deactivate themself.
     */
    async setUserActive(actor: Actor, userId: number, active: boolean, recordAudit?: RecordAudit) {
      assertAdmin(actor);
      if (!active && userId === actor.id) throw invalidField('user', 'reason.ownAccount');
      if (!(await users.findById(userId))) throw notFound('The user');
      await users.setActive(userId, active, async (trx) => {
        if (!active) await sessions.endUserSessions(userId, trx);
        await recordAudit?.(trx, { type: 'user', id: userId });
      });
      tokens.forgetUser(userId);
    },
  };
}

export type UsersAdminService = ReturnType<typeof createUsersAdminService>;
