import type { Clock } from '../../shared/clock.js';
import { requiredText } from '../../domain/inputs.js';
import type { Actor } from '../../domain/policy.js';
import { invalidField } from '../../i18n/reasons.js';
import { companyStep } from './item-company.js';
import type { ItemWriter } from './item-writer.js';
import type { AuditEntryBuilder } from '../write-path/write-path.js';

const MAX_REASON_LENGTH = 2000;

/**
 * Disputes (docs/design.md §20): an executor of the item says it is not their company's or not a defect; a manager
 * resolves it, keeping the company or giving the item to another, with a note. Both are commands of the item's one
 * write path (lock, policy under it, history entry, audit record, event).
 */
export function createItemDisputeService(writer: ItemWriter, clock: Clock) {
  return {
    /**
     * Opens a dispute (`item.dispute`: the item's executors): 422 on `reason` when it is empty or a dispute is already
     * open; the event `item.disputed` carries `{reason}`.
     */
    async dispute(actor: Actor, itemId: number, input: { reason: string }, buildAudit?: AuditEntryBuilder) {
      const reason = requiredText('reason', input.reason, MAX_REASON_LENGTH);
      return writer.write({ itemId, actor, action: 'item.dispute', audit: buildAudit }, async (repos, emit) => {
        if ((await repos.items.dispute(itemId)).dispute_at !== null) {
          throw invalidField('reason', 'reason.alreadyDisputed');
        }
        const now = clock.now().toISOString();
        await repos.items.setDispute({ itemId, dispute: { reason, by: actor.id }, note: reason, userId: actor.id, now });
        emit('item.disputed', { reason });
        return { item: { id: itemId, disputed: { reason, by: actor.id, at: now } } };
      });
    },

    /**
     * Resolves the open dispute (`item.resolve_dispute`: managers, admins) with a note, keeping the company
     * (`companyId` undefined or the same) or giving the item to another (null: none; `item.updated` as any company
     * change). 422 on `note` when there is no open dispute or no note. The event `item.dispute_resolved` carries
     * `{reason, note, company, by}` (`company`: `{from, to}` when it changed, else null; `by`: who had disputed it, told
     * of the resolution: docs/notifications.md `dispute_resolved`).
     */
    async resolve(actor: Actor, itemId: number, input: { note: string; companyId?: number | null }, buildAudit?: AuditEntryBuilder) {
      const note = requiredText('note', input.note, MAX_REASON_LENGTH);
      return writer.write({ itemId, actor, action: 'item.resolve_dispute', audit: buildAudit }, async (repos, emit) => {
        const open = await repos.items.dispute(itemId);
        if (open.dispute_at === null) throw invalidField('note', 'reason.notDisputed');
        const now = clock.now().toISOString();
        const company =
          input.companyId === undefined
            ? null
            : await companyStep(repos, emit, { itemId, companyId: input.companyId, userId: actor.id, now });
        await repos.items.setDispute({ itemId, dispute: null, note, userId: actor.id, now });
        emit('item.dispute_resolved', { reason: open.dispute_reason, note, company, by: open.dispute_by });
        return { item: { id: itemId, disputed: null } };
      });
    },
  };
}

export type ItemDisputeService = ReturnType<typeof createItemDisputeService>;
