import { MEMBER_ROLES } from '../../domain/values.js';
import type { MembersService } from '../../features/admin/members.service.js';
import type { StructureService } from '../../features/admin/structure.service.js';
import type { UsersAdminService } from '../../features/admin/users-admin.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html, type SafeHtml } from '../html.js';
import { badge, crumbs, csrfField, page } from '../layout.js';

type Structure = Awaited<ReturnType<StructureService['getStructure']>>;
type Members = Awaited<ReturnType<MembersService['listMembers']>>;
type AllUsers = Awaited<ReturnType<UsersAdminService['listUsers']>>;
type ProjectList = Awaited<ReturnType<StructureService['listProjects']>>;
type AdminItem = Awaited<ReturnType<StructureService['getItem']>>;

function moveButtons(csrf: SafeHtml, action: string, back: string, what: string) {
  return (['up', 'down'] as const).map(
    (direction) => html`<form method="post" action="${action}" class="inline">${csrf}<input type="hidden" name="back" value="${back}">
<input type="hidden" name="direction" value="${direction}"><button type="submit" class="secondary small" aria-label="${`Move ${what} ${direction}`}">${direction === 'up' ? '↑' : '↓'}</button></form>`,
  );
}

function renameForm(csrf: SafeHtml, action: string, back: string, id: string, label: string, value: string) {
  return html`<form method="post" action="${action}" class="actions">${csrf}<input type="hidden" name="back" value="${back}">
<label class="inline" for="${id}">${label}</label><input id="${id}" type="text" name="name" required maxlength="200" value="${value}">
<button type="submit" class="secondary small">Rename</button></form>`;
}

function accessFields(structure: Structure, prefix: string, member: Members[number] | null) {
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
</div></fieldset>`;
}

function roleSelect(id: string, current: string) {
  return html`<label for="${id}">Project role</label><select id="${id}" name="role">${MEMBER_ROLES.map(
    (r) => html`<option value="${r}" ${current === r ? html`selected` : ''}>${r}</option>`,
  )}</select>`;
}

function membersBlock(session: WebSession, structure: Structure, members: Members, users: AllUsers) {
  const csrf = csrfField(session);
  const id = structure.project.id;
  const candidates = users.filter((u) => !members.some((m) => m.user_id === u.id));
  const describe = (m: Members[number]) => {
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
<form method="post" action="/admin/projects/${id}/members" data-limited-toggle>${csrf}
<input type="hidden" name="user" value="${m.user_id}">
${roleSelect(`member-${m.user_id}-role`, m.role)}
${accessFields(structure, `member-${m.user_id}`, m)}
<div class="actions"><button type="submit" class="small">Save access</button></div></form>
<form method="post" action="/admin/projects/${id}/members/${m.user_id}/remove" data-confirm="${`Remove ${m.name} from this project?`}">${csrf}
<button type="submit" class="small danger">Remove from project</button></form>
</details></td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted">No members yet.</p>`
}
${
  candidates.length
    ? html`<h3>Add a member</h3>
<form method="post" action="/admin/projects/${id}/members" data-limited-toggle>${csrf}
<label for="new-member-user">User</label>
<select id="new-member-user" name="user">${candidates.map((u) => html`<option value="${u.id}">${u.name} (${u.email})</option>`)}</select>
${roleSelect('new-member-role', 'executor')}
${accessFields(structure, 'new-member', null)}
<div class="actions"><button type="submit">Add member</button></div></form>`
    : ''
}
</section>`;
}

function structureBlock(session: WebSession, structure: Structure) {
  const csrf = csrfField(session);
  const id = structure.project.id;
  const back = (anchor: string) => `/admin/projects/${id}#${anchor}`;
  const archived = structure.project.archived === 1;
  if (archived) {
    return html`<section class="card"><h2>Structure</h2><p class="muted">The project is archived: unarchive it to edit its structure.</p></section>`;
  }
  return html`<section class="card" id="structure" aria-labelledby="structure-title">
<h2 id="structure-title">Structure</h2>
${structure.sections.map(
  (s) => html`<div class="card" id="section-${s.id}">
<h3>Section: ${s.name} ${moveButtons(csrf, `/admin/sections/${s.id}/move`, back(`section-${s.id}`), `section ${s.name}`)}</h3>
${renameForm(csrf, `/admin/sections/${s.id}/rename`, back(`section-${s.id}`), `section-${s.id}-name`, 'Section name', s.name)}
${structure.checklists
  .filter((c) => c.section_id === s.id)
  .map(
    (c) => html`<div class="card" id="checklist-${c.id}">
<h4>Checklist: ${c.name} ${moveButtons(csrf, `/admin/checklists/${c.id}/move`, back(`section-${s.id}`), `checklist ${c.name}`)}</h4>
${renameForm(csrf, `/admin/checklists/${c.id}/rename`, back(`checklist-${c.id}`), `checklist-${c.id}-name`, 'Checklist name', c.name)}
<ol>${structure.items
      .filter((i) => i.checklist_id === c.id)
      .map(
        (i) => html`<li data-testid="admin-item">${i.text} ${badge(i.status)}
${moveButtons(csrf, `/admin/items/${i.id}/move`, back(`checklist-${c.id}`), `item ${i.text}`)}
<a href="/admin/items/${i.id}">Edit</a> · <a href="/items/${i.id}">Open</a></li>`,
      )}</ol>
<form method="post" action="/admin/checklists/${c.id}/items" class="actions">${csrf}<input type="hidden" name="back" value="${back(`checklist-${c.id}`)}">
<label class="inline" for="checklist-${c.id}-new-item">New item</label><input id="checklist-${c.id}-new-item" type="text" name="text" required maxlength="1000">
<button type="submit" class="small">Add item</button></form>
</div>`,
  )}
<form method="post" action="/admin/sections/${s.id}/checklists" class="actions">${csrf}<input type="hidden" name="back" value="${back(`section-${s.id}`)}">
<label class="inline" for="section-${s.id}-new-checklist">New checklist</label><input id="section-${s.id}-new-checklist" type="text" name="name" required maxlength="200">
<button type="submit" class="small">Add checklist</button></form>
</div>`,
)}
<form method="post" action="/admin/projects/${id}/sections" class="actions">${csrf}<input type="hidden" name="back" value="${back('structure')}">
<label class="inline" for="new-section">New section</label><input id="new-section" type="text" name="name" required maxlength="200">
<button type="submit">Add section</button></form>
</section>`;
}

export function adminHomeView(session: WebSession): string {
  return page({
    title: 'Administration',
    session,
    path: '/admin',
    body: html`<h1>Administration</h1>
<ul><li><a href="/admin/users">Users</a>: create, deactivate</li>
<li><a href="/admin/projects">Projects</a>: structure (sections, checklists, items) and members</li></ul>`,
  }).value;
}

export function adminProjectsView(session: WebSession, list: ProjectList): string {
  return page({
    title: 'Projects · Administration',
    session,
    path: '/admin',
    body: html`${crumbs([{ href: '/admin', label: 'Administration' }])}
<h1>Projects</h1>
<table><thead><tr><th scope="col">Project</th><th scope="col">Deadline</th><th scope="col">State</th></tr></thead>
<tbody>${list.map(
      (p) =>
        html`<tr><td><a href="/admin/projects/${p.id}">${p.name}</a></td><td data-label="Deadline">${p.deadline ?? '—'}</td><td data-label="State">${p.archived ? badge('archived') : badge('active')}</td></tr>`,
    )}</tbody></table>
<section class="card" aria-labelledby="new-project-title">
<h2 id="new-project-title">New project</h2>
<form method="post" action="/admin/projects">${csrfField(session)}
<label for="new-project-name">Project name</label><input id="new-project-name" type="text" name="name" required maxlength="200">
<label for="new-project-description">Description</label><textarea id="new-project-description" name="description"></textarea>
<label for="new-project-deadline">Deadline</label><input id="new-project-deadline" type="date" name="deadline">
<div class="actions"><button type="submit">Create project</button></div>
</form></section>`,
  }).value;
}

/** A project's editor: its fields, its structure (sections, checklists, items) and its members. */
export function projectEditorView(m: {
  session: WebSession;
  tree: Structure;
  members: Members;
  users: AllUsers;
  saved: boolean;
  /** What was just done (overrides `saved`). */
  notice?: string | null;
}): string {
  const { session, tree } = m;
  const p = tree.project;
  const csrf = csrfField(session);
  return page({
    title: `Edit ${p.name}`,
    session,
    path: '/admin',
    notice: m.notice ?? (m.saved ? 'Saved.' : null),
    body: html`${crumbs([
      { href: '/admin', label: 'Administration' },
      { href: '/admin/projects', label: 'Projects' },
    ])}
<h1>${p.name} ${p.archived ? badge('archived') : ''}</h1>
<p><a href="/projects/${p.id}">Open the project</a></p>
<section class="card" aria-labelledby="project-title">
<h2 id="project-title">Project</h2>
<form method="post" action="/admin/projects/${p.id}">${csrf}
<label for="project-name">Project name</label><input id="project-name" type="text" name="name" required maxlength="200" value="${p.name}">
<label for="project-description">Description</label><textarea id="project-description" name="description">${p.description}</textarea>
<label for="project-deadline">Deadline</label><input id="project-deadline" type="date" name="deadline" value="${p.deadline ?? ''}">
<label class="inline"><input type="checkbox" name="archived" value="1" ${p.archived ? html`checked` : ''}> Archived (read-only for everybody)</label>
<div class="actions"><button type="submit">Save project</button></div>
</form>
</section>
${structureBlock(session, tree)}
${membersBlock(session, tree, m.members, m.users)}`,
  }).value;
}

export function adminItemView(m: {
  session: WebSession;
  item: AdminItem['item'];
  participantIds: AdminItem['participantIds'];
  members: AdminItem['members'];
  saved: boolean;
}): string {
  const { session, item, participantIds, members: projectMembers } = m;
  return page({
    title: 'Edit item',
    session,
    path: '/admin',
    notice: m.saved ? 'Saved.' : null,
    body: html`${crumbs([
      { href: '/admin', label: 'Administration' },
      { href: `/admin/projects/${item.project_id}`, label: 'Project' },
    ])}
<h1>Edit item</h1>
<form method="post" action="/admin/items/${item.id}" class="card">${csrfField(session)}
<label for="item-text">Item text</label><input id="item-text" type="text" name="text" required maxlength="1000" value="${item.text}">
<label for="item-description">Description</label><textarea id="item-description" name="description">${item.description}</textarea>
<fieldset><legend>Participants</legend>
${
  projectMembers.length
    ? projectMembers.map(
        (m) =>
          html`<label class="inline"><input type="checkbox" name="participants" value="${m.id}" ${participantIds.includes(m.id) ? html`checked` : ''}> ${m.name} <span class="muted">(${m.role})</span></label>`,
      )
    : html`<p class="muted">The project has no members yet.</p>`
}
</fieldset>
<div class="actions"><button type="submit">Save item</button><a href="/items/${item.id}">Open the item</a></div>
</form>`,
  }).value;
}
