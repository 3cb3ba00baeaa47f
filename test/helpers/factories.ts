import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Clock } from '../../src/shared/clock.js';
import { loadConfig } from '../../src/shared/config.js';
import { type AppContext, createContext } from '../../src/composition/context.js';
import type { Actor } from '../../src/domain/policy.js';
import type { Scope } from '../../src/domain/scopes.js';
import type { ItemStatus, MemberRole, Priority, UserRole } from '../../src/domain/values.js';
import { createTestDatabase } from './database.js';

/**
 * Small factories for service tests (features/<x>/<x>.service.test.ts): each test makes the users,
 * projects and items it needs, with generated unique values and the ids the database gives, instead of
 * reading the fixed ids of the shared end-to-end workspace (workspace.ts). Everything is made through the
 * services (users, admin structure and members, item writes, tokens), so a factory breaks when a rule of
 * the service it uses changes, not silently later.
 */

/** A clock the test moves: token expiry, session lifetime, sign-in throttling. */
export interface TestClock extends Clock {
  set(at: Date | string): void;
  advance(ms: number): void;
}

export function createTestClock(start: Date | string = new Date()): TestClock {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    set: (at) => void (now = new Date(at).getTime()),
    advance: (ms) => void (now += ms),
  };
}

export interface TestContext {
  ctx: AppContext;
  /** A global administrator made with the context: the actor of structural edits made by the factories. */
  admin: TestUser;
  clock: TestClock;
  cleanup(): Promise<void>;
}

/**
 * A context on a fresh database of the suite's dialect (a temp SQLite file, or a fresh PostgreSQL database
 * dropped by cleanup), with a test clock. The one place the service tests call createContext.
 */
export async function createTestContext(options: { clock?: TestClock; env?: Record<string, string> } = {}): Promise<TestContext> {
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-service-'));
  const database = await createTestDatabase(dir);
  const config = loadConfig({
    DATABASE_URL: database.url,
    STORAGE_URL: `file:${join(dir, 'storage')}`,
    DATA_DIR: dir,
    BASE_URL: 'http://punchlist.test',
    LOG_LEVEL: 'silent',
    SESSION_SECRET: 'test-secret',
    ...options.env,
  });
  const clock = options.clock ?? createTestClock();
  const ctx = await createContext(config, { clock });
  const cleanup = async () => {
    await ctx.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const admin = await makeUser({ ctx }, { role: 'admin', name: 'Test Admin' });
    return { ctx, admin, clock, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * The setup of a service test file, in one line: `const t = useTestContext();` makes a context with
 * createTestContext before the file's first test and cleans it up after its last. The object is filled in
 * by that first hook: read it inside tests and hooks, not while the file is being collected.
 */
export function useTestContext(options: { clock?: TestClock; env?: Record<string, string> } = {}): TestContext {
  const t = {} as TestContext;
  beforeAll(async () => {
    Object.assign(t, await createTestContext(options));
  });
  afterAll(async () => {
    await t.cleanup?.();
  });
  return t;
}

const RUN = randomBytes(3).toString('hex');
let counter = 0;
/** A value no other factory call of this process returns. */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${RUN}-${counter}`;
}

/** A user as the services take it: an Actor (id, global role) and an Author (name). */
export interface TestUser extends Actor {
  name: string;
  email: string;
  /** Set when the user was made with a password (web sign-in). */
  password?: string;
}

export async function makeUser(
  { ctx }: { ctx: AppContext },
  overrides: { role?: UserRole; name?: string; email?: string; password?: string; active?: boolean } = {},
): Promise<TestUser> {
  const name = overrides.name ?? unique('User');
  const row = await ctx.users.createUser({
    email: overrides.email ?? `${unique('user').toLowerCase()}@example.test`,
    name,
    role: overrides.role ?? 'member',
    password: overrides.password ?? null,
  });
  if (overrides.active === false) await ctx.users.setActive(row.id, false);
  return { id: row.id, role: row.role as UserRole, name: row.name, email: row.email, password: overrides.password };
}

export interface TestProject {
  id: number;
  name: string;
}

export async function makeProject(
  t: Pick<TestContext, 'ctx' | 'admin'>,
  overrides: { name?: string; description?: string; deadline?: string; archived?: boolean } = {},
): Promise<TestProject> {
  const name = overrides.name ?? unique('Project');
  const input = { name, description: overrides.description ?? `Description of ${name}`, deadline: overrides.deadline };
  const id = await t.ctx.structure.createProject(t.admin, input);
  if (overrides.archived) await archiveProject(t, { id, name }, true);
  return { id, name };
}

/** Archives (or unarchives) a project through the structure editor: its items become read-only. */
export async function archiveProject(t: Pick<TestContext, 'ctx' | 'admin'>, project: TestProject, archived = true): Promise<void> {
  const current = await t.ctx.structure.getStructure(t.admin, project.id);
  const { name, description, deadline } = current.project;
  await t.ctx.structure.updateProject(t.admin, project.id, { name, description, deadline: deadline ?? undefined, archived });
}

export interface TestSection {
  id: number;
  projectId: number;
}

export async function makeSection(t: TestContext, project?: TestProject, name = unique('Section')): Promise<TestSection> {
  const projectId = (project ?? (await makeProject(t))).id;
  return { id: await t.ctx.structure.createSection(t.admin, projectId, name), projectId };
}

export interface TestChecklist {
  id: number;
  sectionId: number;
  projectId: number;
}

export async function makeChecklist(t: TestContext, section?: TestSection, name = unique('Checklist')): Promise<TestChecklist> {
  const parent = section ?? (await makeSection(t));
  return { id: await t.ctx.structure.createChecklist(t.admin, parent.id, name), sectionId: parent.id, projectId: parent.projectId };
}

/** A project membership (the project role), optionally limited to sections and/or checklists. */
export async function makeMembership(
  t: TestContext,
  project: { id: number } | { projectId: number },
  user: { id: number },
  role: MemberRole,
  limitedTo?: { sections?: { id: number }[]; checklists?: { id: number }[]; companyItemsOnly?: boolean },
): Promise<void> {
  const projectId = 'projectId' in project ? project.projectId : project.id;
  await t.ctx.members.setMember(t.admin, projectId, {
    userId: user.id,
    role,
    limited: limitedTo?.sections !== undefined || limitedTo?.checklists !== undefined,
    companyItemsOnly: limitedTo?.companyItemsOnly,
    sectionIds: (limitedTo?.sections ?? []).map((s) => s.id),
    checklistIds: (limitedTo?.checklists ?? []).map((c) => c.id),
  });
}

/** A new member user of the project with that role: the usual actor of a policy test. */
export async function makeMember(
  t: TestContext,
  project: { id: number } | { projectId: number },
  role: MemberRole,
  limitedTo?: Parameters<typeof makeMembership>[4],
) {
  const user = await makeUser(t);
  await makeMembership(t, project, user, role, limitedTo);
  return user;
}

export interface TestItem {
  id: number;
  checklistId: number;
  sectionId: number;
  projectId: number;
  text: string;
}

/**
 * An item (in a new project, section and checklist unless `checklist` is given). `participants` must be
 * members of the project (the structure editor's rule); status and planning are set through the item
 * writes as the admin, so they leave their history entries and events like any change.
 */
export async function makeItem(
  t: TestContext,
  overrides: {
    checklist?: TestChecklist;
    text?: string;
    description?: string;
    participants?: { id: number }[];
    status?: ItemStatus;
    priority?: Priority;
    deadline?: string | null;
    requires_answer?: boolean;
  } = {},
): Promise<TestItem> {
  const checklist = overrides.checklist ?? (await makeChecklist(t));
  const text = overrides.text ?? unique('Item');
  const { priority, deadline, requires_answer } = overrides;
  // One write, one `item.created` event: what the punch-list cycle does when a manager raises an item.
  const id = await t.ctx.itemEdits.createItem(t.admin, checklist.id, {
    text,
    description: overrides.description,
    participantIds: overrides.participants?.map((p) => p.id),
    priority,
    deadline,
    requires_answer,
  });
  if (overrides.status && overrides.status !== 'pending') await t.ctx.itemWrites.setStatus(t.admin, id, overrides.status);
  return { id, checklistId: checklist.id, sectionId: checklist.sectionId, projectId: checklist.projectId, text };
}

export async function makeComment(t: TestContext, item: { id: number }, author: TestUser = t.admin, text = unique('Comment')) {
  return (await t.ctx.comments.addComment(author, item.id, { text })).comment;
}

/**
 * A project with one item and a member of each role: a manager, the executor `participant` who takes part in
 * the item, an executor `bystander` who does not, and an observer.
 */
export async function makeTeamItem(t: TestContext) {
  const project = await makeProject(t);
  const checklist = await makeChecklist(t, await makeSection(t, project));
  const manager = await makeMember(t, project, 'manager');
  const participant = await makeMember(t, project, 'executor');
  const bystander = await makeMember(t, project, 'executor');
  const observer = await makeMember(t, project, 'observer');
  const item = await makeItem(t, { checklist, participants: [participant] });
  return { project, item, manager, participant, bystander, observer };
}

export async function makeAnswer(t: TestContext, item: { id: number }, author: TestUser = t.admin, text = unique('Answer')) {
  return (await t.ctx.answers.addAnswer(author, item.id, { text })).answer;
}

/** An API token of `user` (raw value included), through the tokens service. */
export async function makeToken(
  { ctx }: { ctx: AppContext },
  user: { id: number },
  scopes: readonly Scope[],
  overrides: { name?: string; expiresAt?: Date | null; projectIds?: number[] | null } = {},
) {
  return ctx.tokens.createToken({
    userId: user.id,
    name: overrides.name ?? unique('Token'),
    scopes: [...scopes],
    expiresAt: overrides.expiresAt ?? null,
    projectIds: overrides.projectIds ?? null,
  });
}

/** A minimal audit record of a request, for the `buildAudit` argument of a write. */
export function auditRecord(user: { id: number }, overrides: { path?: string; entity_type?: string; entity_id?: number } = {}) {
  return {
    request_id: unique('req'),
    at: new Date().toISOString(),
    token_id: null,
    user_id: user.id,
    method: 'POST',
    path: overrides.path ?? '/api/external/v1/test',
    query: '',
    status: 200,
    error_code: null,
    ip: '127.0.0.1',
    user_agent: 'factories',
    duration_ms: 1,
    entity_type: overrides.entity_type ?? null,
    entity_id: overrides.entity_id ?? null,
  };
}
