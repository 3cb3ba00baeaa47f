import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CompaniesService } from '../../../features/companies/companies.service.js';
import { invalidField } from '../../../i18n/reasons.js';
import { Type } from 'typebox';
import { Text } from '../../../http/write-inputs.js';
import { formOf, idParam, parseFields, parseId, textField } from '../../form.js';
import { sessionOf } from '../../session.js';
import { languageOf } from '../../layout.js';
import type { MessageKey } from '../../../i18n/i18n.js';
import { companiesPageView } from '../../views/admin-companies.js';
import type { FormFailure, WebWriter } from '../../web-write.js';

const NOTICES: Record<string, MessageKey> = {
  created: 'admin.notice.companyAdded',
  changed: 'admin.notice.companyUpdated',
  person: 'admin.notice.personCompany',
};

/**
 * The companies page's forms, each with its own schema (no v1 twin): their shapes; a person's user and company are
 * refused here when they are no id, and the companies service checks the rest.
 */
const NewCompanyForm = Type.Object({ name: Text, trade: Text });
const RetiredForm = Type.Object({ retired: Type.Boolean() });
const PersonCompanyForm = Type.Object({ user: Text, company: Text });

const newCompanyOf = (form: URLSearchParams) =>
  parseFields(NewCompanyForm, { name: textField(form, 'name'), trade: textField(form, 'trade') });

const retiredOf = (form: URLSearchParams) => parseFields(RetiredForm, { retired: form.get('retired') === '1' }).retired;

/** The person the form names, for the audit record even when refused (null when none is chosen). */
const personOf = (form: URLSearchParams) => parseId(textField(form, 'user'));

/** A person and their company ("" for none). */
function personCompanyOf(form: URLSearchParams) {
  const fields = parseFields(PersonCompanyForm, { user: textField(form, 'user'), company: textField(form, 'company') });
  const userId = parseId(fields.user);
  if (userId === null) throw invalidField('user', 'reason.chooseUser');
  const companyId = fields.company === '' ? null : parseId(fields.company);
  if (fields.company !== '' && companyId === null) throw invalidField('company', 'reason.chooseCompany');
  return { userId, companyId };
}

async function companiesPage(
  companies: CompaniesService,
  request: FastifyRequest,
  reply: FastifyReply,
  failure?: FormFailure,
  status = 200,
) {
  const saved = (request.query as Record<string, string | undefined>).saved;
  const [list, people] = await Promise.all([companies.listCompanies(), companies.people()]);
  const session = sessionOf(request);
  const notice = failure || !saved || !NOTICES[saved] ? null : languageOf(session).t(NOTICES[saved]);
  const view = companiesPageView({
    session,
    companies: list,
    people,
    notice,
    failure: failure ?? null,
  });
  return reply.code(status).type('text/html; charset=utf-8').send(view);
}

/** `/admin/companies` (docs/design.md §20): administrators add and retire companies and set a person's company. */
export async function adminCompanyPages(app: FastifyInstance, deps: { companies: CompaniesService; webWrite: WebWriter }) {
  const { companies, webWrite } = deps;
  const admin = { config: { web: 'admin' as const } };
  const rerender = (request: FastifyRequest, reply: FastifyReply) => (failure: FormFailure, status: number) =>
    companiesPage(companies, request, reply, failure, status);

  app.get('/admin/companies', admin, (request, reply) => companiesPage(companies, request, reply));

  app.post('/admin/companies', admin, async (request, reply) => {
    const form = formOf(request);
    return webWrite(request, reply, {
      form: 'new-company',
      entity: { type: 'company', id: 0 },
      redirect: () => '/admin/companies?saved=created',
      rerender: rerender(request, reply),
      write: (_, recordAudit) => companies.createCompany(sessionOf(request).user, newCompanyOf(form), recordAudit),
    });
  });

  app.post('/admin/companies/:id/retired', admin, async (request, reply) => {
    const [id, form] = [idParam(request), formOf(request)];
    return webWrite(request, reply, {
      form: 'company-retired',
      entity: { type: 'company', id },
      redirect: () => '/admin/companies?saved=changed',
      rerender: rerender(request, reply),
      write: (_, recordAudit) => companies.setRetired(sessionOf(request).user, id, retiredOf(form), recordAudit),
    });
  });

  app.post('/admin/companies/people', admin, async (request, reply) => {
    const form = formOf(request);
    return webWrite(request, reply, {
      form: 'user-company',
      entity: { type: 'user', id: personOf(form) ?? 0 },
      redirect: () => '/admin/companies?saved=person',
      rerender: rerender(request, reply),
      write: (_, recordAudit) => {
        const { userId, companyId } = personCompanyOf(form);
        return companies.setUserCompany(sessionOf(request).user, userId, companyId, recordAudit);
      },
    });
  });
}
