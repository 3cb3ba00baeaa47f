import { ITEM_STATUSES, type ItemStatus } from '../../domain/values.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { OPENSEADRAGON, PLAN_VIEWER_SCRIPT } from '../assets.js';
import { html, type SafeHtml } from '../html.js';
import { badge, crumbs, csrfField, languageOf, page, time, writeKeyField } from '../layout.js';
import type { Translate } from '../../i18n/i18n.js';
import { statusLabel } from './project-page.js';
import type { FormFailure } from '../web-write.js';
import { FormState, selected } from './forms.js';

/** A plan as its pages show it. */
export interface PlanSummary {
  id: number;
  name: string;
  version: number;
  width: number;
  height: number;
  /** Pins of the items the viewer may see. */
  pinCount: number;
}

/** An upload being rendered (or refused), shown with its progress until it is done. */
export interface PlanUploadState {
  id: number;
  name: string;
  state: 'processing' | 'failed';
  done: number;
  total: number;
  error: string | null;
}

export interface PlansPageModel {
  session: WebSession;
  project: { id: number; name: string };
  plans: PlanSummary[];
  uploads: PlanUploadState[];
  /** The upload form, for managers and admins. */
  canUpload: boolean;
  failure: FormFailure | null;
  notice: string | null;
}

/** The project's plans (docs/design.md §19): the list, the uploads in progress and "Upload plan". */
export function plansPage(m: PlansPageModel): SafeHtml {
  const { t } = languageOf(m.session);
  const state = new FormState('plan-upload', m.failure, t);
  const processing = m.uploads.some((u) => u.state === 'processing');
  return page({
    title: `${t('project.plans')} · ${m.project.name}`,
    session: m.session,
    path: '/projects',
    notice: m.notice,
    body: html`${crumbs(
      [
        { href: '/projects', label: t('nav.projects') },
        { href: `/projects/${m.project.id}`, label: m.project.name },
      ],
      t,
    )}
<h1>${t('project.plans')}</h1>
${
  m.plans.length
    ? html`<ul class="plan-list" data-testid="plan-list">${m.plans.map(
        (p) =>
          html`<li><a href="/plans/${p.id}">${p.name}</a> <span class="muted">— ${t('plans.versionPins', { version: p.version, count: p.pinCount })}</span></li>`,
      )}</ul>`
    : html`<p class="muted" data-testid="no-plans">${t('plans.none')}</p>`
}
${
  m.uploads.length
    ? html`<section class="card" aria-labelledby="uploads-heading" ${processing ? html`data-refresh="3"` : ''}><h2 id="uploads-heading">${t('plans.uploads')}</h2>
<ul>${m.uploads.map(
        (u) =>
          html`<li data-testid="plan-upload" data-state="${u.state}">${u.name}: ${
            u.state === 'processing'
              ? html`<progress max="${Math.max(u.total, 1)}" value="${u.done}" aria-label="${`${u.name}: ${t('plans.pagesOf', { done: u.done, count: u.total })}`}"></progress> ${t('plans.rendered', { done: u.done, count: u.total })}`
              : html`<span class="field-error">${t('plans.refused')} ${u.error ?? t('plans.notRendered')}</span>`
          }</li>`,
      )}</ul>
${processing ? html`<p class="muted">${t('plans.refreshing')} <a href="/projects/${m.project.id}/plans">${t('plans.refresh')}</a></p>` : ''}</section>`
    : ''
}
${m.canUpload ? uploadForm(m.session, `/projects/${m.project.id}/plans`, t('plans.upload'), state, true, t) : ''}`,
  });
}

/** "Upload plan" (a new plan, with its name) or "Upload version" (a new drawing of the same plan). */
function uploadForm(session: WebSession, action: string, button: string, state: FormState, named: boolean, t: Translate): SafeHtml {
  return html`<form method="post" action="${action}" enctype="multipart/form-data" class="card" aria-label="${button}" novalidate>
${state.summary({ file: ['plan-file', t('plans.file')], name: ['plan-name', t('plans.name')] })}
${csrfField(session)}${writeKeyField()}
<div><label for="plan-file">${t('plans.file')}</label><input id="plan-file" type="file" name="file" accept="application/pdf,image/png,image/jpeg,image/webp" required ${state.aria('file', 'plan-file')}>
<p class="hint">${t('plans.fileHint')}</p>${state.message('file', 'plan-file')}</div>
${named ? html`<div><label for="plan-name">${t('plans.name')}</label><input id="plan-name" name="name" maxlength="200" value="${state.value('name')}" ${state.aria('name', 'plan-name')}><p class="hint">${t('plans.nameHint')}</p>${state.message('name', 'plan-name')}</div>` : ''}
<div class="actions"><button type="submit">${button}</button></div>
</form>`;
}

/** A pin on the plan's page: where, which item, its status. */
export interface PlanPin {
  itemId: number;
  text: string;
  status: ItemStatus;
  x: number;
  y: number;
}

export interface PlanPageModel {
  session: WebSession;
  project: { id: number; name: string };
  plan: PlanSummary;
  /** The version shown (the current one unless an earlier one was asked for). */
  shown: { version: number; width: number; height: number; tiles: string; sheet: string; tileSize: number; overlap: number };
  versions: { version: number; createdAt: string; current: boolean }[];
  pins: PlanPin[];
  filter: { status: ItemStatus | null; participant: number | null };
  members: { id: number; name: string }[];
  /** "Add item here" and "Upload new version", for managers and admins. */
  canManage: boolean;
  /** "Place on plan" from an item's page: the item whose place the next tap sets. */
  placing: { itemId: number; text: string } | null;
  failure: FormFailure | null;
  notice: string | null;
}

/** The plan's page: the drawing that pans and zooms, its pins, "Items on this plan" and the versions. */
export function planPage(m: PlanPageModel): SafeHtml {
  const { plan, shown } = m;
  const current = shown.version === plan.version;
  const addUrl = `/projects/${m.project.id}/items/new?plan=${plan.id}`;
  const { t } = languageOf(m.session);
  return page({
    title: `${plan.name} · ${m.project.name}`,
    session: m.session,
    path: '/projects',
    notice: m.notice,
    scripts: [OPENSEADRAGON, PLAN_VIEWER_SCRIPT],
    body: html`${crumbs(
      [
        { href: '/projects', label: t('nav.projects') },
        { href: `/projects/${m.project.id}`, label: m.project.name },
        { href: `/projects/${m.project.id}/plans`, label: t('project.plans') },
      ],
      t,
    )}
<h1>${plan.name}${current ? '' : html` <span class="muted">(${t('plans.versionOf', { version: shown.version, latest: plan.version })})</span>`}</h1>
${filterForm(m, t)}
<div class="plan-tools" role="toolbar" aria-label="${t('place.plan')}">
<button type="button" data-plan-zoom="in" hidden>${t('plans.zoomIn')}</button><button type="button" data-plan-zoom="out" hidden>${t('plans.zoomOut')}</button><button type="button" data-plan-zoom="fit" hidden>${t('plans.fit')}</button>
${m.canManage && current ? html`<button type="button" data-plan-add="${addUrl}" data-keep-ahead="${addUrl}" aria-pressed="false" hidden>${t('plans.addHere')}</button>` : ''}
</div>
<p class="notice" data-plan-add-hint hidden role="status">${t('plans.addHint')}</p>
${m.placing && current ? placeForm(m, m.placing, t) : ''}
<div class="plan-view" data-testid="plan-view" data-tiles="${shown.tiles}" data-width="${shown.width}" data-height="${shown.height}" data-tile-size="${shown.tileSize}" data-overlap="${shown.overlap}" data-format="webp" style="--ratio: ${shown.width} / ${shown.height}" role="region" aria-label="${t('plans.drawingOf', { plan: plan.name })}">
<img data-plan-fallback src="${shown.sheet}" alt="${t('plans.drawingOf', { plan: plan.name })}" width="${shown.width}" height="${shown.height}">
${m.pins.map(
  (p) =>
    html`<a class="pin p-${p.status}" data-testid="pin" data-item-id="${p.itemId}" data-status="${p.status}" data-status-label="${statusLabel(t, p.status)}" data-text="${p.text}" data-x="${p.x}" data-y="${p.y}" style="left: ${pct(p.x)}; top: ${pct(p.y)}" href="/items/${p.itemId}"><span class="sr-only">${p.text}</span></a>`,
)}
</div>
<div class="card pin-card" data-pin-card hidden role="status" aria-live="polite"><p><strong data-pin-text></strong> <span data-pin-status class="muted"></span></p><p><a data-pin-open href="#">${t('plans.openItem')}</a></p></div>
<section aria-labelledby="pins-heading"><h2 id="pins-heading">${t('plans.items')}</h2>
${
  m.pins.length
    ? html`<ol class="pin-list">${m.pins.map((p) => html`<li><a href="/items/${p.itemId}" data-keep-ahead>${p.text}</a> ${badge(p.status, '—', t)}</li>`)}</ol>`
    : html`<p class="muted">${m.filter.status || m.filter.participant !== null ? t('plans.noPinsFiltered') : t('plans.noPins')}</p>`
}</section>
<section aria-labelledby="versions-heading"><h2 id="versions-heading">${t('plans.versions')}</h2>
<ul>${m.versions.map(
      (v) =>
        html`<li>${v.version === shown.version ? html`<strong>${t('plans.version', { version: v.version })}</strong>` : html`<a href="/plans/${plan.id}?version=${v.version}">${t('plans.version', { version: v.version })}</a>`}${v.current ? ` (${t('plans.current')})` : ''} — ${time(v.createdAt, '—', m.session.timeZone)}</li>`,
    )}</ul>
${m.canManage ? html`<h3>${t('plans.uploadNewVersion')}</h3>${uploadForm(m.session, `/plans/${plan.id}/versions`, t('plans.uploadVersion'), new FormState('plan-version', m.failure, t), false, t)}` : ''}
</section>`,
  });
}

/**
 * "Place on plan": the tap on the drawing fills the place and sends the form (the script); without it, or
 * from a keyboard, the place is typed as fractions of the sheet.
 */
function placeForm(m: PlanPageModel, placing: { itemId: number; text: string }, t: Translate): SafeHtml {
  return html`<form method="post" action="/items/${placing.itemId}/location" class="card" data-plan-place-form aria-label="${t('place.placeOnPlan')}">
${csrfField(m.session)}${writeKeyField()}<input type="hidden" name="plan_id" value="${m.plan.id}">
<p role="status"><strong>${t('plans.tapWhere', { text: placing.text })}</strong>${t('plans.orBelow')}</p>
<div class="row"><div><label for="place-x">${t('plans.across')}</label><input id="place-x" name="x" inputmode="decimal" required pattern="0(\.[0-9]+)?|1(\.0+)?" data-place-x></div>
<div><label for="place-y">${t('plans.down')}</label><input id="place-y" name="y" inputmode="decimal" required pattern="0(\.[0-9]+)?|1(\.0+)?" data-place-y></div></div>
<div class="actions"><button type="submit">${t('plans.placeItem')}</button><a href="/items/${placing.itemId}">${t('itemForm.cancel')}</a></div>
</form>`;
}

const pct = (fraction: number) => `${(fraction * 100).toFixed(3)}%`;

function filterForm(m: PlanPageModel, t: Translate): SafeHtml {
  return html`<form method="get" action="/plans/${m.plan.id}" class="card filters" aria-label="${t('plans.filter')}">
${m.shown.version !== m.plan.version ? html`<input type="hidden" name="version" value="${m.shown.version}">` : ''}
<div><label for="pin-status">${t('project.filter.status')}</label><select id="pin-status" name="status"><option value="">${t('project.filter.anyStatus')}</option>
${ITEM_STATUSES.map((s) => html`<option value="${s}" ${selected(m.filter.status === s)}>${statusLabel(t, s)}</option>`)}</select></div>
<div><label for="pin-participant">${t('project.participant')}</label><select id="pin-participant" name="participant"><option value="">${t('project.anyone')}</option>
${m.members.map((u) => html`<option value="${u.id}" ${selected(m.filter.participant === u.id)}>${u.name}</option>`)}</select></div>
<div class="actions"><button type="submit">${t('project.filter.submit')}</button><a href="/plans/${m.plan.id}">${t('project.filter.clear')}</a></div>
</form>`;
}
