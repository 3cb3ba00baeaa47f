import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/tables.js';
import { type Actor, can, canOnProject } from '../../domain/policy.js';
import { isCalendarDate, VERDICTS, type Verdict } from '../../domain/values.js';
import { conflict, forbidden, notFound, validationError } from '../../errors.js';
import type { ItemsService } from '../items/items.service.js';
import type { ProjectsService } from '../projects/projects.service.js';

/**
 * The manager's side of the work (web only, DESIGN.md §3): reviewing answers, item and project
 * verdicts, returning an item to rework. Every right comes from the one policy.
 */
export const REVIEW_DECISIONS = ['approved', 'rejected'] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

export const MAX_REWORK_REASON_LENGTH = 2000;

export interface ItemReviewRights {
  reviewAnswers: boolean;
  verdict: boolean;
  rework: boolean;
}

function parseVerdict(value: string | null): Verdict | null {
  if (value === null || value === '') return null;
  if (!(VERDICTS as readonly string[]).includes(value)) throw validationError('verdict', `must be one of ${VERDICTS.join(', ')} or empty`);
  return value as Verdict;
}

export function createReviewService(deps: { db: Kysely<Database>; clock: Clock; items: ItemsService; projects: ProjectsService }) {
  const { db, clock, items, projects } = deps;

  return {
    /** What the actor may do on the item's review side; 404 when the item is invisible. */
    async itemRights(actor: Actor, itemId: number): Promise<ItemReviewRights> {
      const { target } = await items.access(actor, itemId);
      return {
        reviewAnswers: can(actor, 'answer.review', target),
        verdict: can(actor, 'item.verdict', target),
        rework: can(actor, 'item.rework', target),
      };
    },

    async canSetProjectVerdict(actor: Actor, projectId: number): Promise<boolean> {
      const { project, membership } = await projects.access(actor, projectId);
      return canOnProject(actor, 'project.verdict', { archived: project.archived === 1, membership });
    },

    /** Approves or rejects an answer; the same decision again changes nothing and writes no review. */
    async reviewAnswer(actor: Actor, answerId: number, decision: string) {
      if (!(REVIEW_DECISIONS as readonly string[]).includes(decision)) {
        throw validationError('decision', `must be one of ${REVIEW_DECISIONS.join(', ')}`);
      }
      const answer = await db.selectFrom('answers').select(['id', 'item_id', 'author_id', 'status']).where('id', '=', answerId).executeTakeFirst();
      if (!answer) throw notFound('The answer');
      await items.authorize(actor, answer.item_id, 'answer.review', { answerAuthorId: answer.author_id });
      if (answer.status === decision) return { answer: { id: answer.id, item_id: answer.item_id, status: answer.status }, changed: false };
      const at = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        // Only from the status the reviewer saw: new attachments may have reset it to pending meanwhile.
        const result = await trx
          .updateTable('answers')
          .set({ status: decision, updated_at: at })
          .where('id', '=', answerId)
          .where('status', '=', answer.status)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) {
          throw conflict('answer_changed', 'The answer changed while you were reviewing it: reload the page and review it again');
        }
        await trx
          .insertInto('answer_reviews')
          .values({ answer_id: answerId, from_status: answer.status, to_status: decision, reason: 'review', user_id: actor.id, at })
          .execute();
      });
      return { answer: { id: answer.id, item_id: answer.item_id, status: decision }, changed: true };
    },

    /** Sets or clears (empty) the item's verdict, with a `verdict_set` history entry (note: the verdict). */
    async setItemVerdict(actor: Actor, itemId: number, value: string | null) {
      const verdict = parseVerdict(value);
      const { item } = await items.authorize(actor, itemId, 'item.verdict');
      if (item.verdict === verdict) return { item: { id: itemId, verdict }, changed: false };
      const at = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('items').set({ verdict, updated_at: at }).where('id', '=', itemId).execute();
        await trx
          .insertInto('item_history')
          .values({ item_id: itemId, kind: 'verdict_set', from_status: null, to_status: null, user_id: actor.id, note: verdict ?? 'cleared', at })
          .execute();
      });
      return { item: { id: itemId, verdict }, changed: true };
    },

    /**
     * Returns the item to rework: status back to `in_progress`, the reason and the new deadline
     * (today or later) recorded, and a `returned_to_rework` history entry whose note is the reason.
     */
    async returnToRework(actor: Actor, itemId: number, input: { reason: string; deadline: string }) {
      const reason = input.reason.trim();
      if (!reason || [...reason].length > MAX_REWORK_REASON_LENGTH) {
        throw validationError('reason', `must be 1 to ${MAX_REWORK_REASON_LENGTH} characters`);
      }
      const deadline = input.deadline.trim();
      if (!isCalendarDate(deadline)) throw validationError('deadline', 'must be a date written YYYY-MM-DD');
      const now = clock.now();
      if (deadline < now.toISOString().slice(0, 10)) throw validationError('deadline', 'must be today or later');
      const { item } = await items.authorize(actor, itemId, 'item.rework');
      const at = now.toISOString();
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('items')
          .set({ status: 'in_progress', rework_reason: reason, rework_deadline: deadline, updated_at: at })
          .where('id', '=', itemId)
          .execute();
        await trx
          .insertInto('item_history')
          .values({ item_id: itemId, kind: 'returned_to_rework', from_status: item.status, to_status: 'in_progress', user_id: actor.id, note: reason, at })
          .execute();
      });
      return { item: { id: itemId, status: 'in_progress', rework_reason: reason, rework_deadline: deadline } };
    },

    /** Sets or clears (empty) the project's verdict. */
    async setProjectVerdict(actor: Actor, projectId: number, value: string | null) {
      const verdict = parseVerdict(value);
      const { project, membership } = await projects.access(actor, projectId);
      if (!canOnProject(actor, 'project.verdict', { archived: project.archived === 1, membership })) {
        throw forbidden(project.archived === 1 ? 'The project is archived: it is read-only' : 'You are not allowed to set the verdict of this project');
      }
      if (project.verdict === verdict) return { project: { id: projectId, verdict }, changed: false };
      await db.updateTable('projects').set({ verdict, updated_at: clock.now().toISOString() }).where('id', '=', projectId).execute();
      return { project: { id: projectId, verdict }, changed: true };
    },
  };
}

export type ReviewService = ReturnType<typeof createReviewService>;
