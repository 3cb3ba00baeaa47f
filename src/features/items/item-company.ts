import { invalidField } from '../../i18n/reasons.js';
import type { EmitEvent } from '../write-path/write-path.js';
import type { WriteRepositories } from './write-repositories.js';

/** A company as the item card and events show it (docs/design.md §20). */
export interface CompanyRef {
  id: number;
  name: string;
}

export type CompanyChange = { from: CompanyRef | null; to: CompanyRef | null };

/**
 * The change of an item's responsible company asked for (`companyId`, null: none), read and checked under the item's
 * lock: null when it is the company the item already has; else the `{from, to}` that `item.updated` carries in
 * `changes.responsible_company`. A company that does not exist or is retired is a 422 on `field`: a retired
 * company stays on what it holds but is given nothing new.
 */
export async function companyChange(
  repos: WriteRepositories,
  itemId: number,
  companyId: number | null,
  field = 'company',
): Promise<CompanyChange | null> {
  const from = await repos.items.responsibleCompany(itemId);
  if ((from?.id ?? null) === companyId) return null;
  if (companyId === null) return { from, to: null };
  const to = await repos.items.choosableCompany(companyId);
  if (!to) throw invalidField(field, 'reason.chooseCompany');
  return { from, to: { id: to.id, name: to.name } };
}

/**
 * The company change inside an item's write (item-writer.ts): checked, written with its history entry, and the
 * event `item.updated` with `changes.responsible_company`; null when the item already has that company.
 */
export async function companyStep(
  repos: WriteRepositories,
  emit: EmitEvent,
  p: { itemId: number; companyId: number | null; userId: number; now: string },
): Promise<CompanyChange | null> {
  const change = await companyChange(repos, p.itemId, p.companyId);
  if (!change) return null;
  await applyCompanyChange(repos, p.itemId, change, p.userId, p.now);
  emit('item.updated', { changes: { responsible_company: change } });
  return change;
}

/** Writes a change made by companyChange: the column, `updated_at` and the history entry `company_changed`. */
export async function applyCompanyChange(repos: WriteRepositories, itemId: number, change: CompanyChange, userId: number, now: string) {
  await repos.items.setCompany({ itemId, companyId: change.to?.id ?? null, note: change.to?.name ?? null, userId, now });
}
