import type { Clock } from '../../shared/clock.js';
import { requiredName } from '../../domain/inputs.js';
import type { Actor } from '../../domain/policy.js';
import { notFound } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { RecordAudit } from '../audit/audit.service.js';
import { assertAdmin } from '../admin/admin-guard.js';
import type { CompaniesRepository, CompanyRow } from './companies.repository.js';

/** What `companies list --json` prints and the admin page lists (docs/design.md §20). */
export interface CompanyView {
  id: number;
  name: string;
  trade: string;
  retired: boolean;
}

export const companyView = (row: CompanyRow): CompanyView => ({ id: row.id, name: row.name, trade: row.trade, retired: row.retired === 1 });

const MAX_TRADE_LENGTH = 200;

/**
 * The workspace's companies (docs/design.md §20): administrators add them, retire them (a company is never deleted:
 * retired, it leaves the pickers and stays on the items it holds) and set a person's company (at most one).
 */
export function createCompaniesService(deps: { repo: CompaniesRepository; clock: Clock }) {
  const { repo, clock } = deps;
  const now = () => clock.now().toISOString();

  const service = {
    /** Every company, retired ones included (the admin's list, the CLI). */
    async listCompanies(): Promise<CompanyView[]> {
      return (await repo.list()).map(companyView);
    },

    /** The companies a picker offers: the active ones. */
    async activeCompanies(): Promise<CompanyView[]> {
      return (await repo.list(true)).map(companyView);
    },

    /**
     * A company that may be chosen now (a picker's value, an invitation): it exists and is not retired, else 422
     * on `field`. Retired companies stay on what they hold but are not given anything new.
     */
    async choosable(companyId: number, field = 'company'): Promise<CompanyView> {
      const row = await repo.find(companyId);
      if (!row || row.retired === 1) throw invalidField(field, 'reason.chooseCompany');
      return companyView(row);
    },

    async createCompany(actor: Actor, input: { name: string; trade: string }, recordAudit?: RecordAudit): Promise<CompanyView> {
      assertAdmin(actor);
      const name = requiredName('name', input.name);
      const trade = input.trade.trim() === '' ? '' : requiredName('trade', input.trade, MAX_TRADE_LENGTH);
      return repo.transaction(async (trx) => {
        const id = await repo.insert(trx, { name, trade, now: now() });
        await recordAudit?.(trx, { type: 'company', id });
        return { id, name, trade, retired: false };
      });
    },

    async setRetired(actor: Actor, companyId: number, retired: boolean, recordAudit?: RecordAudit): Promise<void> {
      assertAdmin(actor);
      if (!(await repo.find(companyId))) throw notFound('The company');
      await repo.transaction(async (trx) => {
        await repo.setRetired(trx, companyId, retired, now());
        await recordAudit?.(trx, { type: 'company', id: companyId });
      });
    },

    /** A person's company (null: none); a retired or unknown company → 422 `company`. */
    async setUserCompany(actor: Actor, userId: number, companyId: number | null, recordAudit?: RecordAudit): Promise<void> {
      assertAdmin(actor);
      if (!(await repo.findUser(userId))) throw invalidField('user', 'reason.chooseUser');
      if (companyId !== null) await service.choosable(companyId);
      await repo.transaction(async (trx) => {
        await repo.setUserCompany(trx, userId, companyId, now());
        await recordAudit?.(trx, { type: 'user', id: userId });
      });
    },

    /** The people with their company, for the admin's page. */
    people: () => repo.people(),
  };
  return service;
}

export type CompaniesService = ReturnType<typeof createCompaniesService>;
