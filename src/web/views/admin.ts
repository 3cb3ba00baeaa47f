import type { TemplateSummary } from '../../features/templates/templates.service.js';
import { MEMBER_ROLES } from '../../domain/values.js';
import type { ProjectMember } from '../../features/admin/members.service.js';
import type { AdminProjectRow, ProjectStructure } from '../../features/admin/structure.service.js';
import type { UserAccount } from '../../features/admin/users-admin.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html } from '../html.js';
import { badge, crumbs, csrfField, page, writeKeyField } from '../layout.js';
import type { FormFailure } from '../web-write.js';
import { FormState } from './forms.js';
import { plural } from '../../domain/plural.js';

function accessFields(structure: ProjectStructure, prefix: string, member: ProjectMember | null) {
  const limited = member !== null && (member.section_ids !== null || member.checklist_ids !== null);
  return html`<fieldset><legend>Access</legend>
<label class="inline"><input type="radio" name="access" value="whole" ${limited ? '' : html`checked`}> Whole project</label>
<label class="inline"><input type="radio" name="access" value="limited" ${limited ? html`checked` : ''}> Only these sections and checklists</label>
<div data-limited-parts>
${structure.sections.map(
  (
    s,
  ) => html`<div><label class="inline" for="${prefix}-s${s.id}"><input type="checkbox" id="${prefix}-s${s.id}" name="sections" value="${s.id}"
  ${member?.section_ids?.includes(s.id) ? html`checked` : ''}> Section “${s.name}” (all of it)</label>
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
  ${member?.company_items_only ? html`checked` : ''}> Only the company's items (those whose company is the person's own)</label></fieldset>`;
}

function roleSelect(id: string, current: string) {
  return html`<label for="${id}">Project role</label><select id="${id}" name="role">${MEMBER_ROLES.map(
    (r) => html`<option value="${r}" ${current === r ? html`selected` : ''}>${r}</option>`,
  )}</select>`;
}

function membersBlock(session: WebSession, structure: ProjectStructure, members: ProjectMember[], users: UserAccount[]) {
  const csrf = csrfField(session);
  const id = structure.project.id;
  const candidates = users.filter((u) => !members.some((m) => m.user_id === u.id));
  const describe = (m: ProjectMember) => {
    if (m.section_ids === null && m.checklist_ids === null) return 'whole project';
    const sections = structure.sections.filter((s) => m.section_ids?.includes(s.id)).map((s) => s.name);
    const checklists = structure.checklists.filter((c) => m.checklist_ids?.includes(c.id)).map((c) => c.name);
    return `only ${[...sections.map((s) => `section ${s}`), ...checklists.map((c) => `checklist ${c}`)].join(', ') || 'nothing'}`;
  };
  return html`<section class="card" id="members" aria-labelledby="members-title">
<h2 id="members-title">Members</h2>
${
  members.length
    ? html`<table><thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">Access</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${members.map(
        (
          m,
        ) => html`<tr data-testid="member-row"><td>${m.name} <span class="muted">${m.email}</span>${m.active ? '' : html` ${badge('deactivated')}`}</td>
<td data-label="Role">${m.role}</td><td data-label="Access">${describe(m)}</td>
<td><details><summary>Change</summary>
<form method="post" action="/admin/projects/${id}/members" data-limited-toggle>${csrf}${writeKeyField()}
<input type="hidden" name="user" value="${m.user_id}">
${roleSelect(`member-${m.user_id}-role`, m.role)}
${accessFields(structure, `member-${m.user_id}`, m)}
<div class="actions"><button type="submit" class="small">Save access</button></div></form>
<form method="post" action="/admin/projects/${id}/members/${m.user_id}/remove" data-confirm="${`Remove ${m.name} from this project?`}">${csrf}${writeKeyField()}
<button type="submit" class="small danger">Remove from project</button></form>
</details></td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted">No members yet.</p>`
}
${
  candidates.length
    ? html`<h3>Add a member</h3>
<form method="post" action="/admin/projects/${id}/members" data-limited-toggle>${csrf}${writeKeyField()}
<label for="new-member-user">User</label>
<select id="new-member-user" name="user">${candidates.map((u) => html`<option value="${u.id}">${u.name} (${u.email})</option>`)}</select>
${roleSelect('new-member-role', 'executor')}
${accessFields(structure, 'new-member', null)}
<div class="actions"><button type="submit">Add member</button></div></form>`
    : ''
}
</section>`;
}

/** Sections, checklists and items are edited from the project itself, by its managers and by admins. */
function structureLinks(structure: ProjectStructure) {
  const p = structure.project;
  return html`<section class="card" id="structure" aria-labelledby="structure-title">
<h2 id="structure-title">Structure</h2>
<p>${plural(structure.sections.length, 'section')}, ${plural(structure.checklists.length, 'checklist')}, ${plural(structure.items.length, 'item')}.
Sections, checklists and items are added, renamed and moved from the project, by its managers and by administrators:</p>
<p><a href="/projects/${p.id}/structure">Sections and checklists</a> · <a href="/projects/${p.id}/items/new">Add item</a> · <a href="/projects/${p.id}">Open the project</a></p>
</section>`;
}

const ADMIN_NOTICES: Record<string, string> = {
  created: 'The project was created. Add its members below, then its sections and checklists.',
  '1': 'Saved.',
  member: 'The member was saved.',
  removed: 'The member was removed.',
};

/** The workspace's templates (docs/design.md §21), as /admin lists them. */
function templatesSection(templates: readonly TemplateSummary[]) {
  return html`<section class="card" aria-labelledby="templates-title" id="templates">
<h2 id="templates-title">Templates</h2>
${
  templates.length
    ? html`<ul>${templates.map(
        (t) =>
          html`<li data-testid="template-row"><strong>${t.name}</strong> <span class="muted">(${plural(t.sections, 'section')}, ${plural(t.checklists.length, 'checklist')})</span></li>`,
      )}</ul>`
    : html`<p class="muted">No templates yet: a project's managers save one with “Save as template”.</p>`
}
<p class="hint">Templates are also kept in files: <code>bin/punchlist templates list|export|import</code> (docs/cli.md).</p>
</section>`;
}

export function adminHomeView(session: WebSession, templates: readonly TemplateSummary[] = []): string {
  return page({
    title: 'Administration',
    session,
    path: '/admin',
    body: html`<h1>Administration</h1>
<ul><li><a href="/admin/users">Users</a>: create, deactivate</li>
<li><a href="/admin/projects">Projects</a>: create, rename, archive; members and their roles</li>
<li><a href="/admin/companies">Companies</a>: the subcontractors and trades on site; each person's company</li></ul>
${templatesSection(templates)}`,
  }).value;
}

export function adminProjectsView(
  session: WebSession,
  list: AdminProjectRow[],
  failure: FormFailure | null,
  templates: readonly TemplateSummary[] = [],
): string {
  const form = new FormState('new-project', failure);
  return page({
    title: 'Projects · Administration',
    session,
    path: '/admin',
    error: failure ? html`The project was not created: ${failure.message}` : null,
    body: html`${crumbs([{ href: '/admin', label: 'Administration' }])}
<h1>Projects</h1>
<table><thead><tr><th scope="col">Project</th><th scope="col">Deadline</th><th scope="col">State</th></tr></thead>
<tbody>${list.map(
      (p) =>
        html`<tr><td><a href="/admin/projects/${p.id}">${p.name}</a></td><td data-label="Deadline">${p.deadline ?? '—'}</td><td data-label="State">${p.archived ? badge('archived') : badge('active')}</td></tr>`,
    )}</tbody></table>
<section class="card" aria-labelledby="new-project-title">
<h2 id="new-project-title">New project</h2>
<form method="post" action="/admin/projects">${csrfField(session)}${writeKeyField()}
${form.summary({ name: ['new-project-name', 'Project name'], description: ['new-project-description', 'Description'], deadline: ['new-project-deadline', 'Deadline'], template: ['new-project-template', 'Template'] })}
<label for="new-project-name">Project name</label><input id="new-project-name" type="text" name="name" required maxlength="200" value="${form.value('name')}" ${form.aria('name', 'new-project-name')}>
${form.message('name', 'new-project-name')}
<label for="new-project-description">Description</label><textarea id="new-project-description" name="description">${form.value('description')}</textarea>
<label for="new-project-deadline">Deadline</label><input id="new-project-deadline" type="date" name="deadline" value="${form.value('deadline')}" ${form.aria('deadline', 'new-project-deadline')}>
${form.message('deadline', 'new-project-deadline')}
<label for="new-project-template">Template</label><select id="new-project-template" name="template" ${form.aria('template', 'new-project-template')}><option value="">No template (an empty project)</option>
${templates.map((t) => html`<option value="${t.id}" ${form.value('template') === String(t.id) ? html`selected` : ''}>${t.name}</option>`)}</select>
${form.message('template', 'new-project-template')}
<div class="actions"><button type="submit">Create project</button></div>
</form></section>
${templatesSection(templates)}`,
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
  const form = new FormState('project', m.failure);
  return page({
    title: `Edit ${p.name}`,
    session,
    path: '/admin',
    notice: m.saved ? (ADMIN_NOTICES[m.saved] ?? null) : null,
    error: m.failure ? html`Nothing was saved: ${m.failure.message}` : null,
    body: html`${crumbs([
      { href: '/admin', label: 'Administration' },
      { href: '/admin/projects', label: 'Projects' },
    ])}
<h1>${p.name} ${p.archived ? badge('archived') : ''}</h1>
<p><a href="/projects/${p.id}">Open the project</a></p>
<section class="card" aria-labelledby="project-title">
<h2 id="project-title">Project</h2>
<form method="post" action="/admin/projects/${p.id}">${csrf}${writeKeyField()}
${form.summary({ name: ['project-name', 'Project name'], description: ['project-description', 'Description'], deadline: ['project-deadline', 'Deadline'] })}
<label for="project-name">Project name</label><input id="project-name" type="text" name="name" required maxlength="200" value="${form.value('name', p.name)}" ${form.aria('name', 'project-name')}>
${form.message('name', 'project-name')}
<label for="project-description">Description</label><textarea id="project-description" name="description">${form.value('description', p.description)}</textarea>
<label for="project-deadline">Deadline</label><input id="project-deadline" type="date" name="deadline" value="${form.value('deadline', p.deadline ?? '')}" ${form.aria('deadline', 'project-deadline')}>
${form.message('deadline', 'project-deadline')}
<label class="inline"><input type="checkbox" name="archived" value="1" ${p.archived ? html`checked` : ''}> Archived (read-only for everybody)</label>
<div class="actions"><button type="submit">Save project</button></div>
</form>
</section>
${structureLinks(tree)}
${membersBlock(session, tree, m.members, m.users)}`,
  }).value;
}
