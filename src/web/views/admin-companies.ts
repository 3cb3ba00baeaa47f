import type { CompanyView } from '../../features/companies/companies.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html } from '../html.js';
import { crumbs, csrfField, languageOf, page, writeKeyField } from '../layout.js';
import { stateBadge } from './admin.js';
import type { FormFailure } from '../web-write.js';
import { FormState } from './forms.js';

export interface PersonRow {
  id: number;
  name: string;
  email: string;
  company_id: number | null;
}

/** The options of a company picker: the active companies, and "No company". */
export function companyOptions(companies: readonly CompanyView[], selected: number | null, none = 'No company') {
  return html`<option value="">${none}</option>${companies
    .filter((c) => !c.retired || c.id === selected)
    .map(
      (c) => html`<option value="${c.id}" ${c.id === selected ? html`selected` : ''}>${c.name}${c.trade ? ` (${c.trade})` : ''}</option>`,
    )}`;
}

/** `/admin/companies`: the companies (retire, bring back), a new one, and each person's company (docs/design.md §20). */
export function companiesPageView(m: {
  session: WebSession;
  companies: CompanyView[];
  people: PersonRow[];
  notice?: string | null;
  failure?: FormFailure | null;
}): string {
  const { session, companies, people } = m;
  const csrf = csrfField(session);
  const { t } = languageOf(session);
  const form = new FormState('new-company', m.failure ?? null, t);
  const personForm = new FormState('user-company', m.failure ?? null, t);
  const nameOf = new Map(companies.map((c) => [c.id, c.name]));
  return page({
    title: `${t('admin.companies')} · ${t('admin.title')}`,
    session,
    path: '/admin',
    notice: m.notice,
    error: m.failure ? html`${t('admin.nothingChanged')} ${m.failure.message}` : null,
    body: html`${crumbs([{ href: '/admin', label: t('admin.title') }], t)}
<h1>${t('admin.companies')}</h1>
<table>
<thead><tr><th scope="col">${t('admin.company')}</th><th scope="col">${t('admin.trade')}</th><th scope="col">${t('admin.state')}</th><th scope="col"><span class="sr-only">${t('admin.action')}</span></th></tr></thead>
<tbody>${companies.map(
      (c) => html`<tr data-testid="company-row"><td>${c.name}</td><td data-label="${t('admin.trade')}">${c.trade || '—'}</td>
<td data-label="${t('admin.state')}">${stateBadge(c.retired ? 'retired' : 'active', t)}</td>
<td><form method="post" action="/admin/companies/${c.id}/retired" class="inline">${csrf}${writeKeyField()}
<input type="hidden" name="retired" value="${c.retired ? '0' : '1'}">
<button type="submit" class="small secondary">${c.retired ? t('admin.bringBack') : t('admin.retire')}</button></form></td></tr>`,
    )}</tbody></table>
<section class="card" aria-labelledby="new-company-title">
<h2 id="new-company-title">${t('admin.newCompany')}</h2>
<form method="post" action="/admin/companies">${csrf}${writeKeyField()}
${form.summary({ name: ['company-name', t('admin.name')], trade: ['company-trade', t('admin.trade')] })}
<label for="company-name">${t('admin.name')}</label><input id="company-name" type="text" name="name" required maxlength="200" value="${form.value('name')}" ${form.aria('name', 'company-name')}>
${form.message('name', 'company-name')}
<label for="company-trade">${t('admin.trade')}</label><input id="company-trade" type="text" name="trade" maxlength="200" value="${form.value('trade')}" ${form.aria('trade', 'company-trade')}>
${form.message('trade', 'company-trade')}
<div class="actions"><button type="submit">${t('admin.addCompany')}</button></div>
</form></section>
<section class="card" aria-labelledby="people-title">
<h2 id="people-title">${t('admin.people')}</h2>
<table><thead><tr><th scope="col">${t('admin.person')}</th><th scope="col">${t('admin.company')}</th></tr></thead>
<tbody>${people.map(
      (p) => html`<tr data-testid="person-row"><td>${p.name} <span class="muted">${p.email}</span></td>
<td data-label="${t('admin.company')}">${p.company_id === null ? '—' : (nameOf.get(p.company_id) ?? '—')}</td></tr>`,
    )}</tbody></table>
<form method="post" action="/admin/companies/people">${csrf}${writeKeyField()}
${personForm.summary({ user: ['person-user', t('admin.person')], company: ['person-company', t('admin.company')] })}
<label for="person-user">${t('admin.person')}</label>
<select id="person-user" name="user" ${personForm.aria('user', 'person-user')}>${people.map((p) => html`<option value="${p.id}">${p.name} (${p.email})</option>`)}</select>
${personForm.message('user', 'person-user')}
<label for="person-company">${t('admin.company')}</label>
<select id="person-company" name="company" ${personForm.aria('company', 'person-company')}>${companyOptions(companies, null, t('admin.noCompany'))}</select>
${personForm.message('company', 'person-company')}
<div class="actions"><button type="submit">${t('admin.setCompany')}</button></div>
</form></section>`,
  }).value;
}
