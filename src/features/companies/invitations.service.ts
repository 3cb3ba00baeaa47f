import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import { requiredName } from '../../domain/inputs.js';
import { hashPassword } from '../../domain/passwords.js';
import { type Actor, canOnProject } from '../../domain/policy.js';
import { forbidden } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import { isLanguage, type Language } from '../../i18n/i18n.js';
import type { RecordAudit } from '../audit/audit.service.js';
import type { NotificationsRepository } from '../notifications/notifications.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { checkNewPassword, EMAIL } from '../users/users.service.js';
import type { CompaniesService } from './companies.service.js';
import type { InvitationsRepository } from './invitations.repository.js';

/** How long an invitation's link opens the door (docs/design.md §20). */
export const INVITATION_LIFETIME_MS = 7 * 24 * 3_600_000;
/** The roles an invitation may give: a manager invites people who work or watch, not other managers. */
export const INVITED_ROLES = ['executor', 'observer'] as const;

export interface InvitationInput {
  name: string;
  email: string;
  /** A company's id, or empty for none. */
  company: string;
  role: string;
  companyItemsOnly: boolean;
}

/** What inviting did: a new person got a link (shown once), or a person with an account was added to the project. */
export type InvitationOutcome =
  | { kind: 'invited'; invitationId: number; link: string; email: string; emailed: boolean; expiresAt: string }
  | { kind: 'added'; userId: number; email: string; emailed: boolean };

/** An invitation's link as its page sees it: usable, or why not (nothing is said of an unknown link but that). */
export type InvitationState =
  { state: 'valid'; projectName: string; name: string; email: string } | { state: 'expired' | 'used' | 'unknown' };

/** The message of an invitation's email (migration 026, features/companies/company-mail.ts). */
export interface InvitationMessage {
  kind: 'invitation';
  language: Language;
  link: string;
  name: string;
  projectName: string;
  inviter: string;
  expiresAt: string;
}

/** The message telling a person with an account that they were added to a project. */
export interface MemberAddedMessage {
  kind: 'member_added';
  language: Language;
  projectId: number;
  projectName: string;
  inviter: string;
}

type CheckedInvitation = { name: string; email: string; companyId: number | null; role: string; companyItemsOnly: number };
type ExistingAccount = NonNullable<Awaited<ReturnType<InvitationsRepository['findUserByEmail']>>>;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
/** A link's secret: 32 random bytes, base64url (43 characters). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** What the invitations' functions are given. */
export interface InvitationsDeps {
  repo: InvitationsRepository;
  projects: ProjectsService;
  companies: CompaniesService;
  mailQueue: Pick<NotificationsRepository, 'queueMessage'>;
  clock: Clock;
  baseUrl: string;
  emailEnabled: boolean;
  onQueued?: () => void;
}

/** 404 when the actor cannot see the project, 403 when they may not invite to it. */
async function authorize(deps: InvitationsDeps, actor: Actor, projectId: number) {
  const { project, membership } = await deps.projects.access(actor, projectId);
  if (!canOnProject(actor, 'project.companies', { projectId, archived: project.archived === 1, membership })) {
    throw forbidden(project.archived === 1 ? 'The project is archived' : 'Only the project’s managers may invite people to it');
  }
  return project;
}

async function checkedInput(deps: InvitationsDeps, input: InvitationInput): Promise<CheckedInvitation> {
  const name = requiredName('name', input.name);
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 320) throw invalidField('email', 'reason.email');
  if (!(INVITED_ROLES as readonly string[]).includes(input.role)) {
    throw invalidField('role', 'reason.mustBeOneOf', { values: INVITED_ROLES.join(', ') });
  }
  let companyId: number | null = null;
  if (input.company.trim() !== '') {
    const id = /^[1-9][0-9]{0,15}$/.test(input.company.trim()) ? Number(input.company.trim()) : 0;
    companyId = (await deps.companies.choosable(id)).id;
  }
  if (input.companyItemsOnly && companyId === null) {
    throw invalidField('company', 'reason.chooseInviteCompany');
  }
  return { name, email, companyId, role: input.role, companyItemsOnly: input.companyItemsOnly ? 1 : 0 };
}

/** The invitation's row: who invited whom to what, and its secret's hash and times. */
function insertInvitation(
  deps: InvitationsDeps,
  trx: Parameters<Parameters<InvitationsRepository['transaction']>[0]>[0],
  actor: Actor,
  projectId: number,
  wanted: CheckedInvitation,
  row: { token_hash: string; user_id: number | null; created_at: string; expires_at: string; used_at: string | null },
): Promise<number> {
  return deps.repo.insert(trx, {
    ...row,
    project_id: projectId,
    email: wanted.email,
    name: wanted.name,
    company_id: wanted.companyId,
    role: wanted.role,
    company_items_only: wanted.companyItemsOnly,
    invited_by: actor.id,
  });
}

/** A person who already has an account: added to the project at once, and told by email. */
async function addExisting(
  deps: InvitationsDeps,
  actor: Actor & { name: string },
  project: { id: number; name: string },
  wanted: CheckedInvitation,
  existing: ExistingAccount,
  language: Language,
  recordAudit?: RecordAudit,
): Promise<InvitationOutcome> {
  const projectId = project.id;
  const at = deps.clock.now().toISOString();
  if (existing.active !== 1) throw invalidField('email', 'reason.accountDeactivated');
  if (await deps.repo.isMember(projectId, existing.id)) throw invalidField('email', 'reason.alreadyMember');
  if (wanted.companyId !== null && existing.company_id !== null && existing.company_id !== wanted.companyId) {
    throw invalidField('company', 'reason.otherCompany');
  }
  const outcome = await deps.repo.transaction(async (trx) => {
    // Its record, used at once (a secret nobody knows: the person signs in with their own password).
    const invitationId = await insertInvitation(deps, trx, actor, projectId, wanted, {
      token_hash: hashOf(randomBytes(32).toString('base64url')),
      user_id: existing.id,
      created_at: at,
      expires_at: at,
      used_at: at,
    });
    if (wanted.companyId !== null) await deps.repo.setCompanyIfNone(trx, existing.id, wanted.companyId, at);
    await deps.repo.addMember(trx, {
      project_id: projectId,
      user_id: existing.id,
      role: wanted.role,
      company_items_only: wanted.companyItemsOnly,
      at,
    });
    if (deps.emailEnabled) {
      const message: MemberAddedMessage = {
        kind: 'member_added',
        language: isLanguage(existing.language) ? existing.language : language,
        projectId,
        projectName: project.name,
        inviter: actor.name,
      };
      await deps.mailQueue.queueMessage(trx, {
        key: `invitation:${invitationId}`,
        userId: existing.id,
        toAddress: existing.email,
        message,
        at,
      });
    }
    await recordAudit?.(trx, { type: 'invitation', id: invitationId });
    return { kind: 'added' as const, userId: existing.id, email: existing.email, emailed: deps.emailEnabled };
  });
  if (outcome.emailed) deps.onQueued?.();
  return outcome;
}

/** A new person: a single-use link, emailed (when email is set up) and returned to be shown once. */
async function inviteNew(
  deps: InvitationsDeps,
  actor: Actor & { name: string },
  project: { id: number; name: string },
  wanted: CheckedInvitation,
  language: Language,
  recordAudit?: RecordAudit,
): Promise<InvitationOutcome> {
  const projectId = project.id;
  const now = deps.clock.now();
  const at = now.toISOString();
  const token = randomBytes(32).toString('base64url');
  const link = `${deps.baseUrl}/invitations/${token}`;
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS).toISOString();
  const outcome = await deps.repo.transaction(async (trx) => {
    const invitationId = await insertInvitation(deps, trx, actor, projectId, wanted, {
      token_hash: hashOf(token),
      user_id: null,
      created_at: at,
      expires_at: expiresAt,
      used_at: null,
    });
    if (deps.emailEnabled) {
      const message: InvitationMessage = {
        kind: 'invitation',
        language,
        link,
        name: wanted.name,
        projectName: project.name,
        inviter: actor.name,
        expiresAt,
      };
      // Nobody yet: user 0, the address in `to_address` (migration 026).
      await deps.mailQueue.queueMessage(trx, { key: `invitation:${invitationId}`, userId: 0, toAddress: wanted.email, message, at });
    }
    await recordAudit?.(trx, { type: 'invitation', id: invitationId });
    return { kind: 'invited' as const, invitationId, link, email: wanted.email, emailed: deps.emailEnabled, expiresAt };
  });
  if (outcome.emailed) deps.onQueued?.();
  return outcome;
}

/** Whether the actor may invite to the project (the page shows "Invite" and "Send to companies" then). */
async function mayInvite(deps: InvitationsDeps, actor: Actor, projectId: number): Promise<boolean> {
  return authorize(deps, actor, projectId).then(
    () => true,
    () => false,
  );
}

/** The project's name for the invitation form (404, 403 as for inviting). */
async function projectForInvite(deps: InvitationsDeps, actor: Actor, projectId: number) {
  const project = await authorize(deps, actor, projectId);
  return { id: projectId, name: project.name };
}

async function invite(
  deps: InvitationsDeps,
  actor: Actor & { name: string },
  projectId: number,
  input: InvitationInput,
  language: Language,
  recordAudit?: RecordAudit,
): Promise<InvitationOutcome> {
  const project = { id: projectId, name: (await authorize(deps, actor, projectId)).name };
  const wanted = await checkedInput(deps, input);
  const existing = await deps.repo.findUserByEmail(wanted.email);
  return existing
    ? addExisting(deps, actor, project, wanted, existing, language, recordAudit)
    : inviteNew(deps, actor, project, wanted, language, recordAudit);
}

/** What the link's page shows: the invitation, or why it does not open (expired, used, unknown). */
async function invitation(deps: InvitationsDeps, token: string): Promise<InvitationState> {
  const row = TOKEN.test(token) ? await deps.repo.findByHash(hashOf(token)) : undefined;
  if (!row) return { state: 'unknown' };
  if (row.used_at !== null) return { state: 'used' };
  if (row.expires_at <= deps.clock.now().toISOString()) return { state: 'expired' };
  return { state: 'valid', projectName: row.project_name, name: row.name, email: row.email };
}

/**
 * Sets the invited person's password: their account (with the invitation's company), their membership and the
 * invitation used, in one transaction. Null when the link no longer opens (expired, used, unknown: nothing made);
 * the account, for the session that signs them in, otherwise.
 */
async function accept(deps: InvitationsDeps, token: string, password: string) {
  const { repo } = deps;
  const found = TOKEN.test(token) ? await repo.findByHash(hashOf(token)) : undefined;
  const at = deps.clock.now().toISOString();
  if (!found || found.used_at !== null || found.expires_at <= at) return null;
  checkNewPassword(password);
  if (await repo.findUserByEmail(found.email)) {
    throw invalidField('password', 'reason.accountMeanwhile');
  }
  const passwordHash = await hashPassword(password);
  return repo
    .transaction(async (trx) => {
      // Used by a parallel request first: this one makes nothing.
      if (!(await repo.use(trx, found.id, at))) throw new InvitationGone();
      if (await repo.findUserByEmail(found.email, trx)) throw new InvitationGone();
      const user = await repo.insertUser(trx, {
        email: found.email,
        name: found.name,
        password_hash: passwordHash,
        company_id: found.company_id,
        at,
      });
      await repo.setInvitedUser(trx, found.id, Number(user.id));
      await repo.addMember(trx, {
        project_id: found.project_id,
        user_id: user.id,
        role: found.role,
        company_items_only: found.company_items_only,
        at,
      });
      return { user: { ...user, id: Number(user.id) }, projectId: found.project_id };
    })
    .catch((err: unknown) => {
      if (err instanceof InvitationGone) return null;
      throw err;
    });
}

/**
 * Invitations from the project page (docs/design.md §20): a manager invites a person by email to their project
 * (executor or observer, optionally limited to their company's items). A new person gets a single-use link valid 7
 * days, emailed through the durable queue and shown once to the manager; a person who already has an account is
 * added to the project at once and told so. The link lets the person set a password, which makes their account
 * and membership, and signs them in.
 */
export function createInvitationsService(deps: InvitationsDeps) {
  return {
    mayInvite: mayInvite.bind(null, deps),
    projectForInvite: projectForInvite.bind(null, deps),
    invite: invite.bind(null, deps),
    invitation: invitation.bind(null, deps),
    accept: accept.bind(null, deps),
  };
}

class InvitationGone extends Error {}

export type InvitationsService = ReturnType<typeof createInvitationsService>;
