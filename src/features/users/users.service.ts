import type { Clock } from '../../clock.js';
import type { User } from '../../db/tables.js';
import { hashPassword } from '../../domain/passwords.js';
import { USER_ROLES, type UserRole } from '../../domain/values.js';
import { conflict, validationError } from '../../errors.js';
import type { UsersRepository } from './users.repository.js';

export interface NewUser {
  email: string;
  name: string;
  role?: UserRole;
  password?: string | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function createUsersService(repo: UsersRepository, clock: Clock) {
  return {
    findByEmail(email: string): Promise<User | undefined> {
      return repo.findByEmail(email.trim().toLowerCase());
    },

    findById(id: number): Promise<User | undefined> {
      return repo.findById(id);
    },

    /** Every user in id order (administration). */
    listUsers() {
      return repo.list();
    },

    async createUser(input: NewUser): Promise<User> {
      const email = input.email.trim().toLowerCase();
      const name = input.name.trim();
      const role = input.role ?? 'member';
      if (!EMAIL.test(email)) throw validationError('email', 'must be an email address');
      if (!name) throw validationError('name', 'must not be empty');
      if (!USER_ROLES.includes(role)) throw validationError('role', `must be one of ${USER_ROLES.join(', ')}`);
      if (await this.findByEmail(email)) throw conflict('user_exists', `A user with the email ${email} already exists`);
      const now = clock.now().toISOString();
      const password_hash = input.password ? await hashPassword(input.password) : null;
      return repo.insert({ email, name, role, password_hash, active: 1, created_at: now, updated_at: now });
    },

    async setActive(id: number, active: boolean): Promise<void> {
      await repo.setActive(id, active, clock.now().toISOString());
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
