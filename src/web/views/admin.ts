import type { TemplateSummary } from '../../features/templates/templates.service.js';
import { MEMBER_ROLES } from '../../domain/values.js';
import type { ProjectMember } from '../../features/admin/members.service.js';
import type { AdminProjectRow, ProjectStructure } from '../../features/admin/structure.service.js';
import type { UserAccount } from '../../features/admin/users-admin.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html } from '../html.js';
import { badge, crumbs, csrfField, languageOf, page, writeKeyField } from '../layout.js';
import type { MessageKey, Translate } from '../../i18n/i18n.js';
import type { FormFailure } from '../web-write.js';
import { FormState } from './forms.js';

function accessFields(structure: ProjectStructure, prefix: string, member: ProjectMember | null, t: Translate) {
  const limited = member !== null && (member.section_ids !== null || member.checklist_ids !== null);
  return html`<fieldset><legend>${t('admin.access')}</legend>
<label class="inline"><input type="radio" name="access" value="whole" ${limited ? '' : html`checked`}> ${t('admin.access.whole')}</label>
<label class="inline"><input type="radio" name="access" value="limited" ${limited ? html`checked` : ''}> ${t('admin.access.limited')}</label>
<div data-limited-parts>
${structure.sections.map(
  (
    s,
  ) => html`<div><label class="inline" for="${prefix}-s${s.id}"><input type="checkbox" id="${prefix}-s${s.id}" name="sections" value="${s.id}"
  ${member?.section_ids?.includes(s.id) ? html`checked` : ''}> ${t('admin.access.section', { name: s.name })}</label>
<div class="nested">${structure.checklists
    .filter((c) => c.section_id === s.id)
    .map(
      (
        c,
      ) => html`<label class="inline" for="${prefix}-c${c.id}"><input type="checkbox" id="${prefix}-c${c.id}" name="checklists" value="${c.id}"
  ${member?.checklist_ids?.includes(c.id) ? html`checked` : ''}> ${c.name}</label>`,
    )}</div></div>`,
)}
</div>
<label class="inline" for="${prefix}-company-items"><input type="checkbox" id="${prefix}-company-items" name="company_items_only" value="1"
  ${member?.company_items_only ? html`checked` : ''}> ${t('admin.access.companyItems')}</label></fieldset>`;
}

function roleSelect(id: string, current: string, t: Translate) {
  return html`<label for="${id}">${t('admin.projectRole')}</label><select id="${id}" name="role">${MEMBER_ROLES.map(
    (r) => html`<option value="${r}" ${current === r ? html`selected` : ''}>${t(`role.${r}`)}</option>`,
  )}</select>`;
}

function membersBlock(session: WebSession, structure: ProjectStructure, members: ProjectMember[], users: UserAccount[]) {
  const csrf = csrfField(session);
  const { t } = languageOf(session);
  const id = structure.project.id;
  const candidates = users.filter((u) => !members.some((m) => m.user_id === u.id));
  const describe = (m: ProjectMember) => {
    if (m.section_ids === null && m.checklist_ids === null) return t('admin.access.wholeShort');
    const sections = structure.sections.filter((s) => m.section_ids?.includes(s.id)).map((s) => s.name);
    const checklists = structure.checklists.filter((c) => m.checklist_ids?.includes(c.id)).map((c) => c.name);
    const parts = [
      ...sections.map((s) => t('admin.access.sectionShort', { name: s })),
      ...checklists.map((c) => t('admin.access.checklistShort', { name: c })),
    ];
    return t('admin.access.only', { parts: parts.join(', ') || t('admin.access.nothing') });
  };
  return html`<section class="card" id="members" aria-labelledby="members-title">
<h2 id="members-title">${t('admin.members')}</h2>
${
  members.length
    ? html`<table><thead><tr><th scope="col">${t('admin.member')}</th><th scope="col">${t('admin.role')}</th><th scope="col">${t('admin.access')}</th><th scope="col"><span class="sr-only">${t('admin.actions')}</span></th></tr></thead>
<tbody>${members.map(
        (
          m,
        ) => html`<tr data-testid="member-row"><td>${m.name} <span class="muted">${m.email}</span>${m.active ? '' : html` ${stateBadge('deactivated', t)}`}</td>
<td data-label="${t('admin.role')}">${t(`role.${m.role}` as MessageKey)}</td><td data-label="${t('admin.access')}">${describe(m)}</td>
<td><details><summary>${t('admin.change')}</summary>
<form method="post" action="/admin/projects/${id}/members" data-limited-toggle>${csrf}${writeKeyField()}
<input type="hidden" name="user" value="${m.user_id}">
${roleSelect(`member-${m.user_id}-role`, m.role, t)}
${accessFields(structure, `member-${m.user_id}`, m, t)}
<div class="actions"><button type="submit" class="small">${t('admin.saveAccess')}</button></div></form>
<form method="post" action="/admin/projects/${id}/members/${m.user_id}/remove" data-confirm="${t('admin.removeConfirm', { name: m.name })}">${csrf}${writeKeyField()}
<button type="submit" class="small danger">${t('admin.removeMember')}</button></form>
</details></td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted">${t('admin.noMembers')}</p>`
}
${
  candidates.length
    ? html`<h3>${t('admin.addMemberTitle')}</h3>
<form method="post" action="/admin/projects/${id}/members" data-limited-toggle>${csrf}${writeKeyField()}
<label for="new-member-user">${t('admin.user')}</label>
<select id="new-member-user" name="user">${candidates.map((u) => html`<option value="${u.id}">${u.name} (${u.email})</option>`)}</select>
${roleSelect('new-member-role', 'executor', t)}
${accessFields(structure, 'new-member', null, t)}
<div class="actions"><button type="submit">${t('admin.addMember')}</button></div></form>`
    : ''
}
</section>`;
}

/** Sections, checklists and items are edited from the project itself, by its managers and by admins. */
function structureLinks(structure: ProjectStructure, t: Translate) {
  const p = structure.project;
  return html`<section class="card" id="structure" aria-labelledby="structure-title">
<h2 id="structure-title">${t('admin.structure')}</h2>
<p>${t('admin.sections', { count: structure.sections.length })}, ${t('admin.checklists', { count: structure.checklists.length })}, ${t('admin.items', { count: structure.items.length })}.
${t('admin.structure.lead')}</p>
<p><a href="/projects/${p.id}/structure">${t('admin.structure.link')}</a> · <a href="/projects/${p.id}/items/new">${t('admin.addItem')}</a> · <a href="/projects/${p.id}">${t('admin.openProject')}</a></p>
</section>`;
}

const ADMIN_NOTICES: Record<string, MessageKey> = {
  created: 'admin.notice.projectCreated',
  '1': 'admin.notice.saved',
  member: 'admin.notice.memberSaved',
  removed: 'admin.notice.memberRemoved',
};

/** A user's, member's or company's state, in the page's language (`badge()` knows only the items' states). */
export function stateBadge(value: 'active' | 'deactivated' | 'retired' | 'archived', t: Translate) {
  return html`<span class="badge s-${value}">${t(`admin.state.${value}`)}</span>`;
}

/** The workspace's templates (docs/design.md §21), as /admin lists them. */
function templatesSection(templates: readonly TemplateSummary[], t: Translate) {
  return html`<section class="card" aria-labelledby="templates-title" id="templates">
<h2 id="templates-title">${t('admin.templates')}</h2>
${
  templates.length
    ? html`<ul>${templates.map(
        (tpl) =>
          html`<li data-testid="template-row"><strong>${tpl.name}</strong> <span class="muted">(${t('admin.sections', { count: tpl.sections })}, ${t('admin.checklists', { count: tpl.checklists.length })})</span></li>`,
      )}</ul>`
    : html`<p class="muted">${t('admin.noTemplates')}</p>`
}
<p class="hint">${t('admin.templates.files')} <code>bin/punchlist templates list|export|import</code> (docs/cli.md).</p>
</section>`;
}

export function adminHomeView(session: WebSession, templates: readonly TemplateSummary[] = []): string {
  const { t } = languageOf(session);
  return page({
    title: t('admin.title'),
    session,
    path: '/admin',
    body: html`<h1>${t('admin.title')}</h1>
<ul><li><a href="/admin/users">${t('admin.users')}</a>: ${t('admin.home.users')}</li>
<li><a href="/admin/projects">${t('admin.projects')}</a>: ${t('admin.home.projects')}</li>
<li><a href="/admin/companies">${t('admin.companies')}</a>: ${t('admin.home.companies')}</li></ul>
${templatesSection(templates, t)}`,
  }).value;
}

export function adminProjectsView(
  session: WebSession,
  list: AdminProjectRow[],
  failure: FormFailure | null,
  templates: readonly TemplateSummary[] = [],
): string {
  const { t } = languageOf(session);
  const form = new FormState('new-project', failure, t);
  return page({
    title: `${t('admin.projects')} · ${t('admin.title')}`,
    session,
    path: '/admin',
    error: failure ? html`${t('admin.projectNotCreated')} ${failure.message}` : null,
    body: html`${crumbs([{ href: '/admin', label: t('admin.title') }], t)}
<h1>${t('admin.projects')}</h1>
<table><thead><tr><th scope="col">${t('admin.project')}</th><th scope="col">${t('admin.deadline')}</th><th scope="col">${t('admin.state')}</th></tr></thead>
<tbody>${list.map(
      (p) =>
        html`<tr><td><a href="/admin/projects/${p.id}">${p.name}</a></td><td data-label="${t('admin.deadline')}">${p.deadline ?? '—'}</td><td data-label="${t('admin.state')}">${stateBadge(p.archived ? 'archived' : 'active', t)}</td></tr>`,
    )}</tbody></table>
<section class="card" aria-labelledby="new-project-title">
<h2 id="new-project-title">${t('admin.newProject')}</h2>
<form method="post" action="/admin/projects">${csrfField(session)}${writeKeyField()}
${form.summary({ name: ['new-project-name', t('admin.projectName')], description: ['new-project-description', t('admin.description')], deadline: ['new-project-deadline', t('admin.deadline')], template: ['new-project-template', t('admin.template')] })}
<label for="new-project-name">${t('admin.projectName')}</label><input id="new-project-name" type="text" name="name" required maxlength="200" value="${form.value('name')}" ${form.aria('name', 'new-project-name')}>
${form.message('name', 'new-project-name')}
<label for="new-project-description">${t('admin.description')}</label><textarea id="new-project-description" name="description">${form.value('description')}</textarea>
<label for="new-project-deadline">${t('admin.deadline')}</label><input id="new-project-deadline" type="date" name="deadline" value="${form.value('deadline')}" ${form.aria('deadline', 'new-project-deadline')}>
${form.message('deadline', 'new-project-deadline')}
<label for="new-project-template">${t('admin.template')}</label><select id="new-project-template" name="template" ${form.aria('template', 'new-project-template')}><option value="">${t('admin.noTemplate')}</option>
${templates.map((t) => html`<option value="${t.id}" ${form.value('template') === String(t.id) ? html`selected` : ''}>${t.name}</option>`)}</select>
${form.message('template', 'new-project-template')}
<div class="actions"><button type="submit">${t('admin.createProject')}</button></div>
</form></section>
${templatesSection(templates, t)}`,
  }).value;
}

/** A project's editor: its fields and its members; its structure is edited from the project. */
export function projectEditorView(m: {
  session: WebSession;
  tree: ProjectStructure;
  members: ProjectMember[];
  users: UserAccount[];
  saved: string | null;
  failure: FormFailure | null;
}): string {
  const { session, tree } = m;
  const p = tree.project;
  const csrf = csrfField(session);
  const { t } = languageOf(session);
  const form = new FormState('project', m.failure, t);
  return page({
    title: t('admin.editTitle', { name: p.name }),
    session,
    path: '/admin',
    notice: m.saved && ADMIN_NOTICES[m.saved] ? t(ADMIN_NOTICES[m.saved]!) : null,
    error: m.failure ? html`${t('admin.nothingSaved')} ${m.failure.message}` : null,
    body: html`${crumbs(
      [
        { href: '/admin', label: t('admin.title') },
        { href: '/admin/projects', label: t('admin.projects') },
      ],
      t,
    )}
<h1>${p.name} ${p.archived ? badge('archived', '—', t) : ''}</h1>
<p><a href="/projects/${p.id}">${t('admin.openProject')}</a></p>
<section class="card" aria-labelledby="project-title">
<h2 id="project-title">${t('admin.project')}</h2>
<form method="post" action="/admin/projects/${p.id}">${csrf}${writeKeyField()}
${form.summary({ name: ['project-name', t('admin.projectName')], description: ['project-description', t('admin.description')], deadline: ['project-deadline', t('admin.deadline')] })}
<label for="project-name">${t('admin.projectName')}</label><input id="project-name" type="text" name="name" required maxlength="200" value="${form.value('name', p.name)}" ${form.aria('name', 'project-name')}>
${form.message('name', 'project-name')}
<label for="project-description">${t('admin.description')}</label><textarea id="project-description" name="description">${form.value('description', p.description)}</textarea>
<label for="project-deadline">${t('admin.deadline')}</label><input id="project-deadline" type="date" name="deadline" value="${form.value('deadline', p.deadline ?? '')}" ${form.aria('deadline', 'project-deadline')}>
${form.message('deadline', 'project-deadline')}
<label class="inline"><input type="checkbox" name="archived" value="1" ${p.archived ? html`checked` : ''}> ${t('admin.archived')}</label>
<div class="actions"><button type="submit">${t('admin.saveProject')}</button></div>
</form>
</section>
${structureLinks(tree, t)}
${membersBlock(session, tree, m.members, m.users)}`,
  }).value;
}
