/**
 * Companies (docs/design.md §20) as one module: the workspace's companies, invitations from the project page and
 * "Send to companies", and the messages of their queued emails (made when the email sender sends them).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Actor } from '../../domain/policy.js';
import type { Clock } from '../../shared/clock.js';
import type { NotificationsRepository } from '../notifications/notifications.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { ReportFile, ReportOptions } from '../reports/report.service.js';
import { createCompaniesRepository } from './companies.repository.js';
import { createCompaniesService } from './companies.service.js';
import { createCompanyMail } from './company-mail.js';
import { createCompanyPacksRepository } from './company-packs.repository.js';
import { companyPackPdf, createCompanyPacksService } from './company-packs.service.js';
import { createInvitationsRepository } from './invitations.repository.js';
import { createInvitationsService } from './invitations.service.js';

export interface CompaniesModuleDeps {
  db: Kysely<Database>;
  projects: ProjectsService;
  clock: Clock;
  baseUrl: string;
  /** The email queue (features/notifications) and its sender's wake-up; `emailEnabled` false without SMTP. */
  mailQueue: Pick<NotificationsRepository, 'queueMessage' | 'users'>;
  emailEnabled: boolean;
  onQueued: () => void;
  /** The reports, for a pack's PDF made at send time as its recipient then sees the project. */
  reports: () => { openReport(actor: Actor, projectId: number, options: ReportOptions): Promise<ReportFile> };
}

export function createCompaniesModule(deps: CompaniesModuleDeps) {
  const { db, projects, clock, mailQueue, emailEnabled, onQueued } = deps;
  const companies = createCompaniesService({ repo: createCompaniesRepository(db), clock });
  return {
    companies,
    invitations: createInvitationsService({
      repo: createInvitationsRepository(db),
      projects,
      companies,
      mailQueue,
      clock,
      baseUrl: deps.baseUrl,
      emailEnabled,
      onQueued,
    }),
    companyPacks: createCompanyPacksService({ repo: createCompanyPacksRepository(db), projects, mailQueue, clock, emailEnabled, onQueued }),
    /** The message of an invitation's or a pack's queued email (the email sender's `renderMessage`). */
    renderMail: createCompanyMail({
      baseUrl: deps.baseUrl,
      userOf: async (id) => (await mailQueue.users([id]))[0],
      packPdf: (user, message) => companyPackPdf(deps.reports(), user, message),
    }),
  };
}

export type CompaniesModule = ReturnType<typeof createCompaniesModule>;
