import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, languageOf, writeKeyField } from '../layout.js';
import { FormState, selected } from './forms.js';
import type { FormFailure } from '../web-write.js';

/** Where an item is (docs/design.md §19): its plan and place, and for managers the plans to place it on. */
export interface ItemPlaceModel {
  itemId: number;
  location: { plan_id: number; plan_name: string; x: number; y: number } | null;
  /** The project's plans, for "Place on plan" (managers and admins); null: the reader may not place. */
  plans: { id: number; name: string }[] | null;
  /** The sheet of the item's plan, for the crop around its pin. */
  sheet: string | null;
}

/**
 * "Where": the item's plan with a crop around its pin and a link to the plan at it; "Place on plan" (choose a
 * plan, then tap the place on its page) and "Remove from plan", for those who may.
 */
export function itemPlace(session: WebSession, m: ItemPlaceModel, failure: FormFailure | null): SafeHtml {
  const loc = m.location;
  if (!loc && (m.plans === null || m.plans.length === 0)) return html``;
  const { t } = languageOf(session);
  const form = new FormState('place', failure, t);
  return html`<section class="card" aria-labelledby="place-heading" id="place" data-testid="item-location">
<h2 id="place-heading">${t('project.where')}</h2>
${
  loc
    ? html`<p>${t('place.on')} <a href="/plans/${loc.plan_id}">${loc.plan_name}</a></p>
${m.sheet ? html`<div class="place-crop" style="--x: ${loc.x}; --y: ${loc.y}"><img src="${m.sheet}" alt="${t('place.alt', { plan: loc.plan_name })}"></div>` : ''}`
    : html`<p class="muted">${t('place.notPlaced')}</p>`
}
${
  m.plans && m.plans.length
    ? html`<form method="get" action="/plans/choose" class="inline-form" aria-label="${t('place.placeOnPlan')}">
<input type="hidden" name="item" value="${m.itemId}">
<label for="place-plan">${t('place.plan')}</label><select id="place-plan" name="plan">${m.plans.map(
        (p) => html`<option value="${p.id}" ${selected(loc?.plan_id === p.id)}>${p.name}</option>`,
      )}</select>
<button type="submit">${t('place.placeOnPlan')}</button>
<p class="hint">${t('place.hint')}</p>${form.message('location', 'place-plan')}</form>`
    : ''
}
${
  loc && m.plans
    ? html`<form method="post" action="/items/${m.itemId}/location/remove" class="inline-form">${csrfField(session)}${writeKeyField()}<button type="submit" class="secondary">${t('place.remove')}</button></form>`
    : ''
}
</section>`;
}
