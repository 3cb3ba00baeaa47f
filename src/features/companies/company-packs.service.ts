import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import { type Actor, canOnProject } from '../../domain/policy.js';
import type { UserRole } from '../../domain/values.js';
import { ApiError, forbidden } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import { isLanguage, type Language } from '../../i18n/i18n.js';
import type { RecordAudit } from '../audit/audit.service.js';
import type { NotificationsRepository } from '../notifications/notifications.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { ReportFile, ReportOptions } from '../reports/report.service.js';
import type { ItemFilter } from '../worklists/worklists.service.js';
import type { CompanyPacksRepository } from './company-packs.repository.js';

/** The message of a company pack's email (migration 026): the PDF is made when it is sent, as its recipient sees it. */
export interface CompanyPackMessage {
  kind: 'company_pack';
  language: Language;
  projectId: number;
  projectName: string;
  companyId: number;
  companyName: string;
  sender: string;
}

/** A company pack's items: the company's open ones (not done), in the tree's order; `punchlist report --company` too. */
export function packFilter(companyId: number, status: ItemFilter['status'] = null): ItemFilter {
  return { status, mine: false, overdue: false, q: null, participant: null, sort: 'tree', open: true, company: companyId };
}

/** The PDF of a pack as `user` sees it now (the report of docs/design.md §17); null when they no longer see the project. */
export async function companyPackPdf(
  reports: { openReport(actor: Actor, projectId: number, options: ReportOptions): Promise<ReportFile> },
  user: { id: number; role: string },
  m: CompanyPackMessage,
): Promise<Buffer | null> {
  let file: ReportFile;
  try {
    file = await reports.openReport({ id: user.id, role: user.role as UserRole }, m.projectId, {
      format: 'pdf',
      filter: packFilter(m.companyId),
      madeBy: m.sender,
    });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of file.stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** What "Send to companies" did: packs queued now, and those that had gone out already (unchanged since). */
export interface PacksOutcome {
  companies: number;
  queued: number;
  alreadySent: number;
}

/**
 * Company packs (docs/design.md §20): each company holding open items (not done) in the project gets, for each of its
 * people who are members of the project, one email with the PDF of its open items, through the durable email queue.
 * A pack is the company's open items as they are (their ids, statuses and last changes: the send key): the same pack is never
 * sent twice to a person; once the items changed, "Send to companies" sends the new one.
 */
export function createCompanyPacksService(deps: {
  repo: CompanyPacksRepository;
  projects: ProjectsService;
  mailQueue: Pick<NotificationsRepository, 'queueMessage'>;
  clock: Clock;
  emailEnabled: boolean;
  onQueued?: () => void;
}) {
  const { repo, projects, mailQueue, clock } = deps;

  return {
    async sendPacks(
      actor: Actor & { name: string },
      projectId: number,
      language: Language,
      recordAudit?: RecordAudit,
    ): Promise<PacksOutcome> {
      const { project, membership } = await projects.access(actor, projectId);
      if (!canOnProject(actor, 'project.companies', { projectId, archived: project.archived === 1, membership })) {
        throw forbidden(project.archived === 1 ? 'The project is archived' : 'Only the project’s managers may send the company packs');
      }
      if (!deps.emailEnabled) throw invalidField('company_packs', 'reason.noEmail');
      const held = await repo.openHeldItems(projectId);
      const byCompany = new Map<number, { name: string; items: string[] }>();
      for (const row of held) {
        const company = byCompany.get(Number(row.company_id)) ?? { name: row.company_name, items: [] };
        company.items.push(`${row.item_id}:${row.status}@${row.updated_at}`);
        byCompany.set(Number(row.company_id), company);
      }
      const people = await repo.recipients(projectId, [...byCompany.keys()]);
      const at = clock.now().toISOString();
      const outcome = await repo.transaction(async (trx) => {
        let queued = 0;
        let alreadySent = 0;
        for (const person of people) {
          const companyId = Number(person.company_id);
          const company = byCompany.get(companyId)!;
          const sendKey = createHash('sha256').update(company.items.join(',')).digest('hex').slice(0, 32);
          const fresh = await repo.recordSend(trx, {
            project_id: projectId,
            company_id: companyId,
            user_id: person.id,
            send_key: sendKey,
            created_at: at,
          });
          if (!fresh) {
            alreadySent++;
            continue;
          }
          const message: CompanyPackMessage = {
            kind: 'company_pack',
            language: isLanguage(person.language) ? person.language : language,
            projectId,
            projectName: project.name,
            companyId,
            companyName: company.name,
            sender: actor.name,
          };
          const key = `pack:${projectId}:${companyId}:${person.id}:${sendKey}`;
          if (await mailQueue.queueMessage(trx, { key, userId: person.id, toAddress: person.email, message, at })) queued++;
        }
        await recordAudit?.(trx, { type: 'project', id: projectId });
        return { companies: new Set(people.map((p) => Number(p.company_id))).size, queued, alreadySent };
      });
      if (outcome.queued > 0) deps.onQueued?.();
      return outcome;
    },
  };
}

export type CompanyPacksService = ReturnType<typeof createCompanyPacksService>;
