import type { Clock } from '../../shared/clock.js';
import { assertDeadlineAhead, type DocumentLinkInput, normalizeDeadline, normalizeDocumentLinks } from '../../domain/inputs.js';
import type { Actor, ItemAction } from '../../domain/policy.js';
import type { ItemStatus, Priority } from '../../domain/values.js';
import { invalidField } from '../../i18n/reasons.js';
import type { ItemWriter } from './item-writer.js';
import type { AuditEntryBuilder, EmitEvent } from '../write-path/write-path.js';
import { companyStep } from './item-company.js';
import type { WriteRepositories } from './write-repositories.js';

export interface PlanningInput {
  /** undefined: leave as is; null or "": clear. */
  deadline?: string | null;
  priority?: Priority;
  requires_answer?: boolean;
  /** Given in a web form: a new deadline must not have passed (the forms' rule, domain/inputs.ts); v1 takes any real date. */
  fromForm?: boolean;
}

/** The planning fields given, checked and in the table's shape (at least one is required), and where they come from. */
function planningChanges(input: PlanningInput) {
  const changes: { deadline?: string | null; priority?: Priority; requires_answer?: number } = {};
  if (input.deadline !== undefined) changes.deadline = normalizeDeadline(input.deadline);
  if (input.priority !== undefined) changes.priority = input.priority;
  if (input.requires_answer !== undefined) changes.requires_answer = input.requires_answer ? 1 : 0;
  if (Object.keys(changes).length === 0) {
    throw invalidField('body', 'reason.giveOneOf', { fields: 'deadline, priority, requires_answer' });
  }
  return { changes, fromForm: input.fromForm === true };
}

/** Several changes of one item at once (the web's bulk changes): all of them or none. */
interface ItemChanges {
  status?: ItemStatus;
  planning?: PlanningInput;
  /** A change owned by another feature (participants), run in the same transaction after the policy allows `action`. */
  extra?: { action: ItemAction; step: (repos: WriteRepositories, emit: EmitEvent) => Promise<boolean> };
}

export interface ItemWritesDeps {
  writer: ItemWriter;
  clock: Clock;
}

/** The status change inside an item's write: same status again changes nothing. */
async function statusStep(
  deps: ItemWritesDeps,
  { items }: WriteRepositories,
  emit: EmitEvent,
  actor: Actor,
  itemId: number,
  status: ItemStatus,
) {
  const current = await items.currentStatus(itemId);
  if (!current) throw new Error(`item ${itemId} vanished inside its own write transaction`);
  if (current.status === status) {
    return { item: { id: itemId, status, updated_at: current.updated_at }, changed: false };
  }
  const now = deps.clock.now().toISOString();
  await items.changeStatus({ itemId, from: current.status, to: status, userId: actor.id, now });
  emit('item.status_changed', { from: current.status, to: status });
  return { item: { id: itemId, status, updated_at: now }, changed: true };
}

/** The planning change inside an item's write: updated_at moves when a value changes. */
async function planningStep(
  deps: ItemWritesDeps,
  { items }: WriteRepositories,
  emit: EmitEvent,
  itemId: number,
  given: ReturnType<typeof planningChanges>,
) {
  const { clock } = deps;
  const { changes } = given;
  const current = await items.planning(itemId);
  // The item's own deadline is read under its lock: keeping a passed one is allowed, setting one is not.
  if (given.fromForm && changes.deadline !== undefined) assertDeadlineAhead(changes.deadline, current.deadline, clock.now());
  const differs = (Object.keys(changes) as (keyof typeof changes)[]).some((key) => changes[key] !== current[key]);
  const updated_at = differs ? clock.now().toISOString() : current.updated_at;
  const next = { ...current, ...changes };
  if (differs) {
    await items.setPlanning(itemId, { ...changes, updated_at });
    const planning = (p: typeof next) => ({ deadline: p.deadline, priority: p.priority, requires_answer: p.requires_answer === 1 });
    emit('item.planning_changed', { from: planning(current), to: planning(next) });
  }
  return {
    item: { id: itemId, deadline: next.deadline, priority: next.priority, requires_answer: next.requires_answer === 1, updated_at },
    changed: differs,
  };
}

/** Same status again changes nothing: no history entry, updated_at kept, `changed: false`. */
async function setStatus(deps: ItemWritesDeps, actor: Actor, itemId: number, status: ItemStatus, buildAudit?: AuditEntryBuilder) {
  return deps.writer.write({ itemId, actor, action: 'item.status', audit: buildAudit }, (repos, emit) =>
    statusStep(deps, repos, emit, actor, itemId, status),
  );
}

/** Applies only the planning fields given; at least one is required. updated_at moves when a value changes. */
async function setPlanning(deps: ItemWritesDeps, actor: Actor, itemId: number, input: PlanningInput, buildAudit?: AuditEntryBuilder) {
  const given = planningChanges(input);
  return deps.writer.write({ itemId, actor, action: 'item.planning', audit: buildAudit }, async (repos, emit) => ({
    item: (await planningStep(deps, repos, emit, itemId, given)).item,
  }));
}

/**
 * Status and planning of one item in one write (one lock, one audit record, an event per kind of change):
 * every change is allowed or none is made. `changed` tells whether anything differed.
 */
async function changeItem(deps: ItemWritesDeps, actor: Actor, itemId: number, input: ItemChanges, buildAudit?: AuditEntryBuilder) {
  const given = input.planning ? planningChanges(input.planning) : null;
  if (input.status === undefined && !given && !input.extra) throw invalidField('body', 'reason.statusOrPlanning');
  const action: ItemAction[] = [];
  if (input.status !== undefined) action.push('item.status');
  if (given) action.push('item.planning');
  if (input.extra) action.push(input.extra.action);
  return deps.writer.write({ itemId, actor, action, audit: buildAudit }, async (repos, emit) => {
    const status = input.status !== undefined ? await statusStep(deps, repos, emit, actor, itemId, input.status) : null;
    const planning = given ? await planningStep(deps, repos, emit, itemId, given) : null;
    const extra = input.extra ? await input.extra.step(repos, emit) : false;
    return { changed: (status?.changed ?? false) || (planning?.changed ?? false) || extra };
  });
}

/**
 * The item's responsible company (docs/design.md §20; null: none): managers and admins (`item.edit`), under the
 * item's lock, with its history entry `company_changed` and the event `item.updated` carrying
 * `changes.responsible_company` `{from, to}` (each `{id, name}` or null). The same company again changes nothing.
 */
async function setCompany(deps: ItemWritesDeps, actor: Actor, itemId: number, companyId: number | null, buildAudit?: AuditEntryBuilder) {
  return deps.writer.write({ itemId, actor, action: 'item.edit', audit: buildAudit }, async (repos, emit) => {
    const now = deps.clock.now().toISOString();
    const change = await companyStep(repos, emit, { itemId, companyId, userId: actor.id, now });
    if (!change) return { item: { id: itemId, responsible_company: await repos.items.responsibleCompany(itemId) }, changed: false };
    return { item: { id: itemId, responsible_company: change.to, updated_at: now }, changed: true };
  });
}

/** Replaces the item's whole list of document links (not an append); `[]` clears it. New rows, new ids. */
async function replaceItemLinks(
  deps: ItemWritesDeps,
  actor: Actor,
  itemId: number,
  input: readonly DocumentLinkInput[],
  buildAudit?: AuditEntryBuilder,
) {
  const links = normalizeDocumentLinks(input);
  return deps.writer.write({ itemId, actor, action: 'item.materials', audit: buildAudit }, async ({ items }, emit) => {
    const now = deps.clock.now().toISOString();
    await items.deleteItemLinks(itemId);
    const document_links = await items.insertDocumentLinks(itemId, null, links, now);
    await items.touch(itemId, now);
    emit('item.links_replaced', { document_links });
    return { document_links };
  });
}

/**
 * The operational writes on an item itself: status, planning fields, the document links list.
 * Each one: input rules (422), then visibility (404), then the policy (403), then one
 * transaction holding the change, its audit record and its event.
 */
export function createItemWritesService(writer: ItemWriter, clock: Clock) {
  const deps: ItemWritesDeps = { writer, clock };
  return {
    setStatus: setStatus.bind(null, deps),
    setPlanning: setPlanning.bind(null, deps),
    changeItem: changeItem.bind(null, deps),
    setCompany: setCompany.bind(null, deps),
    replaceItemLinks: replaceItemLinks.bind(null, deps),
  };
}

export type ItemWritesService = ReturnType<typeof createItemWritesService>;
