import type { Clock } from '../../../shared/clock.js';
import { type Actor, canOnProject } from '../../../domain/policy.js';
import { formDeadline } from '../../../domain/inputs.js';
import { VERDICTS, type Verdict } from '../../../domain/values.js';
import { conflict, forbidden, notFound } from '../../../shared/errors.js';
import { invalidField } from '../../../i18n/reasons.js';
import type { AuditService } from '../../audit/audit.service.js';
import type { ItemWriter } from '../item-writer.js';
import type { AuditEntryBuilder, EventOutbox } from '../../write-path/write-path.js';
import type { ProjectsService } from '../../projects/projects.service.js';
import type { AnswersRepository } from '../answers/answers.repository.js';
import type { ReviewRepository } from './review.repository.js';

/**
 * The manager's side of the work (web only, docs/design.md §3): reviewing answers, item and project
 * verdicts, returning an item to rework. Every right comes from the one policy.
 */
const REVIEW_DECISIONS = ['approved', 'rejected'] as const;

const MAX_REWORK_REASON_LENGTH = 2000;

function parseVerdict(value: string | null): Verdict | null {
  if (value === null || value === '') return null;
  if (!(VERDICTS as readonly string[]).includes(value))
    throw invalidField('verdict', 'reason.mustBeOneOfOrEmpty', { values: VERDICTS.join(', ') });
  return value as Verdict;
}

/** What the review commands need: the answers and verdicts, the projects, the item's writer, the audit and the outbox. */
export interface ReviewDeps {
  repo: ReviewRepository;
  answers: AnswersRepository;
  clock: Clock;
  projects: ProjectsService;
  audit: AuditService;
  writer: ItemWriter;
  events: EventOutbox;
}

export function createReviewService(deps: ReviewDeps) {
  return {
    canSetProjectVerdict: canSetProjectVerdict.bind(null, deps),
    reviewAnswer: reviewAnswer.bind(null, deps),
    setItemVerdict: setItemVerdict.bind(null, deps),
    returnToRework: returnToRework.bind(null, deps),
    setProjectVerdict: setProjectVerdict.bind(null, deps),
  };
}

async function canSetProjectVerdict(deps: ReviewDeps, actor: Actor, projectId: number): Promise<boolean> {
  const { projects } = deps;
  const { project, membership } = await projects.access(actor, projectId);
  return canOnProject(actor, 'project.verdict', { projectId, archived: project.archived === 1, membership });
}

/**
 * Approves or rejects an answer, through the item's write path (row lock, review entry, audit record).
 * The same decision again changes nothing. `seenUpdatedAt`: the answer as the reviewer saw it; if it
 * changed since (new images reset it to pending), the review is refused rather than applied blind.
 */
async function reviewAnswer(
  deps: ReviewDeps,
  actor: Actor,
  answerId: number,
  decision: string,
  options: { seenUpdatedAt?: string; buildAudit?: AuditEntryBuilder; itemId?: number } = {},
) {
  const { answers, clock, writer } = deps;
  if (!(REVIEW_DECISIONS as readonly string[]).includes(decision)) {
    throw invalidField('decision', 'reason.mustBeOneOf', { values: REVIEW_DECISIONS.join(', ') });
  }
  const answer = await answers.findOwner(answerId);
  // The web names the item in the URL (and audits the write on it): an answer of another item is not there.
  if (!answer || (options.itemId !== undefined && answer.item_id !== options.itemId)) throw notFound('The answer');
  const extra = { answerAuthorId: answer.author_id };
  return writer.write({ itemId: answer.item_id, actor, action: 'answer.review', extra, audit: options.buildAudit }, async (repos, emit) => {
    const current = await repos.answers.state(answerId);
    if (options.seenUpdatedAt !== undefined && options.seenUpdatedAt !== current.updated_at) {
      throw conflict('answer_changed', 'The answer changed while you were reviewing it: look at it again and review it again');
    }
    const result = { answer: { id: answerId, item_id: answer.item_id, status: decision }, changed: current.status !== decision };
    if (!result.changed) return result;
    const at = clock.now().toISOString();
    await repos.answers.changeStatus({
      answer_id: answerId,
      from_status: current.status,
      to_status: decision,
      reason: 'review',
      user_id: actor.id,
      at,
    });
    await repos.items.touch(answer.item_id, at);
    emit('answer.reviewed', { answer_id: answerId, from: current.status, to: decision });
    return result;
  });
}

/**
 * Sets or clears (empty) the item's verdict, with a `verdict_set` history entry (note: the verdict).
 * Only a done item is accepted, and one that requires an answer only once one of its answers is approved
 * (docs/design.md §14; both read under the item's lock, so a concurrent change cannot slip between).
 * Rejecting is open whatever the status: it says the work is not acceptable as it stands.
 */
async function setItemVerdict(deps: ReviewDeps, actor: Actor, itemId: number, value: string | null, buildAudit?: AuditEntryBuilder) {
  const { clock, writer } = deps;
  const verdict = parseVerdict(value);
  return writer.write({ itemId, actor, action: 'item.verdict', audit: buildAudit }, async ({ review }, emit) => {
    const current = await review.itemState(itemId);
    if (current.verdict === verdict) return { item: { id: itemId, verdict }, changed: false };
    if (verdict === 'accepted' && current.status !== 'done') {
      throw invalidField('verdict', 'reason.acceptDone');
    }
    if (verdict === 'accepted' && current.requires_answer === 1 && !(await review.hasApprovedAnswer(itemId))) {
      throw invalidField('verdict', 'reason.acceptAnswer');
    }
    const at = clock.now().toISOString();
    await review.changeItem(
      itemId,
      { verdict },
      { kind: 'verdict_set', from_status: null, to_status: null, user_id: actor.id, note: verdict ?? 'cleared', at },
    );
    emit('item.verdict_set', { from: current.verdict, to: verdict });
    return { item: { id: itemId, verdict }, changed: true };
  });
}

/**
 * Returns the item to rework: status back to `in_progress`, its verdict cleared (the work is to be judged
 * again), the reason and the new deadline (the forms' deadline rule, required here) recorded, and a
 * `returned_to_rework` history entry whose note is the reason. The old status and verdict are read under
 * the item's lock, so the history chain stays unbroken; the event names the verdict cleared, if any.
 */
async function returnToRework(
  deps: ReviewDeps,
  actor: Actor,
  itemId: number,
  input: { reason: string; deadline: string },
  buildAudit?: AuditEntryBuilder,
) {
  const { clock, writer } = deps;
  const reason = input.reason.trim();
  if (!reason || [...reason].length > MAX_REWORK_REASON_LENGTH) {
    throw invalidField('reason', 'reason.length', { max: MAX_REWORK_REASON_LENGTH });
  }
  const now = clock.now();
  const deadline = formDeadline(input.deadline, { now, required: true })!;
  const at = now.toISOString();
  return writer.write({ itemId, actor, action: 'item.rework', audit: buildAudit }, async ({ review }, emit) => {
    const current = await review.itemState(itemId);
    await review.changeItem(
      itemId,
      { status: 'in_progress', rework_reason: reason, rework_deadline: deadline, verdict: null },
      { kind: 'returned_to_rework', from_status: current.status, to_status: 'in_progress', user_id: actor.id, note: reason, at },
    );
    const verdict = current.verdict === null ? {} : { verdict: { from: current.verdict, to: null } };
    emit('item.returned_to_rework', { from: current.status, to: 'in_progress', reason, rework_deadline: deadline, ...verdict });
    return { item: { id: itemId, status: 'in_progress', rework_reason: reason, rework_deadline: deadline, verdict: null } };
  });
}

/**
 * Sets or clears (empty) the project's verdict, with its audit record and its event in the same transaction.
 * The current verdict is read under the project's lock: of concurrent equal requests one changes it.
 */
async function setProjectVerdict(deps: ReviewDeps, actor: Actor, projectId: number, value: string | null, buildAudit?: AuditEntryBuilder) {
  const { repo, clock, projects, audit, events } = deps;
  const verdict = parseVerdict(value);
  const { project, membership } = await projects.access(actor, projectId);
  if (!canOnProject(actor, 'project.verdict', { projectId, archived: project.archived === 1, membership })) {
    throw forbidden(
      project.archived === 1 ? 'The project is archived: it is read-only' : 'You are not allowed to set the verdict of this project',
    );
  }
  const changed = await repo.inTransaction(async (trx) => {
    const current = await repo.lockProjectVerdict(trx, projectId);
    if (current === undefined) throw notFound('The project');
    if (current === verdict) return false;
    const at = clock.now().toISOString();
    await repo.setProjectVerdict(trx, projectId, verdict, at);
    const record = buildAudit?.();
    if (record) await audit.record(record, trx);
    await events.append(trx, [
      {
        type: 'project.verdict_set',
        at,
        project_id: projectId,
        section_id: null,
        checklist_id: null,
        item_id: null,
        actor_id: actor.id,
        token_id: record?.token_id ?? null,
        data: { from: current, to: verdict },
      },
    ]);
    return true;
  });
  if (changed) events.committed();
  return { project: { id: projectId, verdict }, changed };
}

export type ReviewService = ReturnType<typeof createReviewService>;
