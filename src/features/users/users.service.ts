import { isLanguage, type Language } from '../../i18n/i18n.js';
import type { Clock } from '../../shared/clock.js';
import { requiredName } from '../../domain/inputs.js';
import type { User } from '../../db/tables.js';
import { hashPassword, verifyPassword } from '../../domain/passwords.js';
import { canonicalTimeZone } from '../../domain/time-zones.js';
import { type MemberRole, USER_ROLES, type UserRole } from '../../domain/values.js';
import { conflict, notFound } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { RecordAudit } from '../audit/audit.service.js';
import type { UsersRepository } from './users.repository.js';

interface NewUser {
  email: string;
  name: string;
  role?: UserRole;
  password?: string | null;
}

export const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The shortest password accepted for web sign-in (set by an administrator or changed by its user). */
const MIN_PASSWORD_LENGTH = 8;
/** scrypt hashes any length; this only bounds the work a form can ask for. */
const MAX_PASSWORD_LENGTH = 1024;

/** The rule of a new password, with the message beside `field`. */
export function checkNewPassword(password: string, field = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw invalidField(field, 'reason.passwordMin', { max: MIN_PASSWORD_LENGTH });
  if (password.length > MAX_PASSWORD_LENGTH) throw invalidField(field, 'reason.atMost', { max: MAX_PASSWORD_LENGTH });
}

/** One of the user's projects and their role there, for the Profile's "You" block. */
export interface ProjectRole {
  projectId: number;
  name: string;
  archived: boolean;
  role: MemberRole;
  limited: boolean;
}

export interface UsersDeps {
  repo: UsersRepository;
  clock: Clock;
}

function findByEmail(deps: UsersDeps, email: string): Promise<User | undefined> {
  return deps.repo.findByEmail(email.trim().toLowerCase());
}

/**
 * A new user (the web's administration, the CLI). A password, when given, follows the rule of every new
 * password; without one the user cannot sign in to the web (tokens can still be made for them).
 */
async function createUser(deps: UsersDeps, input: NewUser, recordAudit?: RecordAudit): Promise<User> {
  const { repo, clock } = deps;
  const email = input.email.trim().toLowerCase();
  const role = input.role ?? 'member';
  if (!EMAIL.test(email)) throw invalidField('email', 'reason.email');
  const name = requiredName('name', input.name);
  if (!USER_ROLES.includes(role)) throw invalidField('role', 'reason.mustBeOneOf', { values: USER_ROLES.join(', ') });
  if (input.password) checkNewPassword(input.password);
  if (await findByEmail(deps, email)) throw conflict('user_exists', `A user with the email ${email} already exists`);
  const now = clock.now().toISOString();
  const password_hash = input.password ? await hashPassword(input.password) : null;
  return repo.transaction(async (trx) => {
    const user = await repo.insert(trx, { email, name, role, password_hash, active: 1, created_at: now, updated_at: now });
    await recordAudit?.(trx, { type: 'user', id: user.id });
    return user;
  });
}

/** Sets (an IANA name, any spelling Intl accepts) or clears (null or "") the user's time zone. */
async function setTimeZone(deps: UsersDeps, id: number, zone: string | null, recordAudit?: RecordAudit): Promise<string | null> {
  const canonical = zone ? canonicalTimeZone(zone) : null;
  if (zone && !canonical) throw invalidField('time_zone', 'reason.timeZone');
  await deps.repo.transaction(async (trx) => {
    await deps.repo.setTimeZone(trx, id, canonical, deps.clock.now().toISOString());
    await recordAudit?.(trx);
  });
  return canonical;
}

/**
 * Sets the interface's language (docs/design.md §23): one we speak, or null for the browser's. A code we do not
 * speak is no error: it is stored as no choice, and the browser's language (else English) is used.
 */
async function setLanguage(deps: UsersDeps, id: number, language: string | null, recordAudit?: RecordAudit): Promise<Language | null> {
  const chosen = isLanguage(language) ? language : null;
  await deps.repo.transaction(async (trx) => {
    await deps.repo.setLanguage(trx, id, chosen, deps.clock.now().toISOString());
    await recordAudit?.(trx);
  });
  return chosen;
}

/**
 * A user's own password change: the current password must be right (422 beside `current_password`
 * otherwise, without saying more), the new one follows the rule and differs from it. The slow checks
 * (scrypt) run before the transaction; `alongside` commits with the new hash (the sessions it ends, the
 * audit record).
 */
async function changePassword(
  deps: UsersDeps,
  id: number,
  input: { current: string; next: string; confirm: string },
  alongside?: RecordAudit,
): Promise<void> {
  const { repo, clock } = deps;
  const user = await repo.findById(id);
  if (!user) throw notFound('The user');
  if (!(await verifyPassword(input.current, user.password_hash))) {
    throw invalidField('current_password', 'reason.currentPassword');
  }
  checkNewPassword(input.next, 'new_password');
  if (input.next !== input.confirm) throw invalidField('confirm_password', 'reason.confirmPassword');
  if (input.next === input.current) throw invalidField('new_password', 'reason.newPassword');
  const hash = await hashPassword(input.next);
  await repo.transaction(async (trx) => {
    await repo.setPasswordHash(trx, id, hash, clock.now().toISOString());
    await alongside?.(trx);
  });
}

/** The projects the user is a member of, with their role there and whether their access is limited. */
async function projectRoles(deps: UsersDeps, userId: number): Promise<ProjectRole[]> {
  const rows = await deps.repo.projectRoles(userId);
  return rows.map((r) => ({
    projectId: r.id,
    name: r.name,
    archived: r.archived === 1,
    role: r.role as MemberRole,
    limited: r.section_ids !== null || r.checklist_ids !== null,
  }));
}

/** Activates or deactivates a user; `alongside` commits with it (the sessions a deactivation ends, the audit record). */
async function setActive(deps: UsersDeps, id: number, active: boolean, alongside?: RecordAudit): Promise<void> {
  await deps.repo.transaction(async (trx) => {
    await deps.repo.setActive(trx, id, active, deps.clock.now().toISOString());
    await alongside?.(trx);
  });
}

export function createUsersService(repo: UsersRepository, clock: Clock) {
  const deps: UsersDeps = { repo, clock };
  return {
    findByEmail: findByEmail.bind(null, deps),
    findById: (id: number): Promise<User | undefined> => repo.findById(id),
    /** Every user in id order (administration). */
    listUsers: () => repo.list(),
    createUser: createUser.bind(null, deps),
    setTimeZone: setTimeZone.bind(null, deps),
    setLanguage: setLanguage.bind(null, deps),
    changePassword: changePassword.bind(null, deps),
    projectRoles: projectRoles.bind(null, deps),
    setActive: setActive.bind(null, deps),
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
