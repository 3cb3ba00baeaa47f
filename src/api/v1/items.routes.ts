import type { AppContext } from '../../context.js';
import type { Handlers } from './operation-route.js';

/**
 * The spec's status_history has two kinds, `created` and `status_changed`. A return to rework (web) is a
 * status change, so it is one here, its reason in `note`; a verdict is not, so it stays out (the web
 * item page shows the whole history).
 */
function v1StatusHistory<T extends { kind: string; to: string | null }>(history: T[]) {
  return history.flatMap((h) => (h.kind !== 'created' && h.to === null ? [] : [{ ...h, kind: h.kind === 'created' ? ('created' as const) : ('status_changed' as const) }]));
}

/** An item: its card, status, planning, links and images. */
export const itemsHandlers = ({ items, itemWrites, attachments }: AppContext): Pick<Handlers, 'getItem' | 'setItemStatus' | 'setItemPlanning' | 'replaceItemLinks' | 'attachItemImages'> => ({
  getItem: async ({ user, query }) => {
    const { item } = await items.getItemCard(user, Number(query.id));
    return { item: { ...item, status_history: v1StatusHistory(item.status_history) } };
  },

  setItemStatus: ({ user, fields: { id, status }, audit }) => itemWrites.setStatus(user, id, status, audit),

  setItemPlanning: ({ user, fields: { id, deadline, priority, requires_answer }, audit }) =>
    itemWrites.setPlanning(user, id, { deadline, priority, requires_answer }, audit),

  replaceItemLinks: ({ user, fields: { id, document_links }, audit }) => itemWrites.replaceItemLinks(user, id, document_links, audit),

  attachItemImages: ({ user, fields, files, audit }) => attachments.attachToItem(user, Number(fields.item_id), files, audit),
});
