import type { Clock } from '../../shared/clock.js';
import type { Actor } from '../../domain/policy.js';
import { invalidField } from '../../i18n/reasons.js';
import type { ItemWriter } from './item-writer.js';
import type { AuditEntryBuilder } from '../write-path/write-path.js';
import type { ItemLocation } from '../plans/plan-views.js';
import type { WriteRepositories } from './write-repositories.js';

/** A place asked for: a plan of the item's project, and fractions 0–1 of its sheet from the top left. */
export interface PlaceInput {
  planId: number;
  x: number;
  y: number;
}

/** The place's values checked (422 `location` naming the coordinate): finite numbers from 0 to 1, a plan id. */
export function checkedPlace(input: PlaceInput): PlaceInput {
  if (!Number.isSafeInteger(input.planId) || input.planId < 1) throw invalidField('location.plan_id', 'reason.planId');
  for (const key of ['x', 'y'] as const) {
    const value = input[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
      throw invalidField(`location.${key}`, 'reason.fraction');
    }
  }
  return { planId: input.planId, x: input.x, y: input.y };
}

/**
 * The plan of a place, inside a write: one of the project's own plans, else 422 on `location.plan_id` (a plan of
 * another project, or none, is not a place for this item). Returns the plan's name.
 */
export async function planOfPlace(repos: WriteRepositories, place: PlaceInput, projectId: number): Promise<string> {
  const plan = await repos.items.planOfProject(place.planId, projectId);
  if (!plan) throw invalidField('location.plan_id', 'reason.choosePlanOfItem');
  return plan.name;
}

/**
 * Places an item on a plan, moves its pin, or takes it off (docs/design.md §19): a command of the item's one write
 * path (item-writer.ts), so it takes the item's lock (two managers placing the same item serialize on it), checks
 * `item.place` under it (managers and admins; an archived project refuses), writes the history entry
 * `location_changed`, the request's audit record, and the event `item.updated` with `changes.location`
 * `{from, to}` (each `{plan_id, plan_name, x, y}` or null). The same place again changes nothing.
 */
export function createItemLocationService(writer: ItemWriter, clock: Clock) {
  async function setLocation(actor: Actor, itemId: number, input: PlaceInput | null, buildAudit?: AuditEntryBuilder) {
    const place = input === null ? null : checkedPlace(input);
    return writer.write({ itemId, actor, action: 'item.place', audit: buildAudit }, async (repos, emit) => {
      const current = await repos.items.location(itemId);
      const { project_id: projectId } = (await repos.items.findItem(itemId))!;
      const planName = place ? await planOfPlace(repos, place, projectId) : null;
      const from: ItemLocation | null =
        current.plan_id === null || current.plan_name === null
          ? null
          : { plan_id: current.plan_id, plan_name: current.plan_name, x: current.plan_x!, y: current.plan_y! };
      const to: ItemLocation | null = place ? { plan_id: place.planId, plan_name: planName!, x: place.x, y: place.y } : null;
      const same = from === null ? to === null : to !== null && from.plan_id === to.plan_id && from.x === to.x && from.y === to.y;
      if (same) return { item: { id: itemId, location: from }, changed: false };
      const now = clock.now().toISOString();
      await repos.items.setLocation({ itemId, place, note: to?.plan_name ?? null, userId: actor.id, now });
      emit('item.updated', { changes: { location: { from, to } } });
      return { item: { id: itemId, location: to, updated_at: now }, changed: true };
    });
  }

  return {
    setLocation,
    /** Places the item (or moves its pin) at `place`. */
    placeItem: (actor: Actor, itemId: number, place: PlaceInput, buildAudit?: AuditEntryBuilder) =>
      setLocation(actor, itemId, place, buildAudit),
    /** Takes the item off its plan ("Remove from plan"); on none already: `changed: false`. */
    removeFromPlan: (actor: Actor, itemId: number, buildAudit?: AuditEntryBuilder) => setLocation(actor, itemId, null, buildAudit),
  };
}

export type ItemLocationService = ReturnType<typeof createItemLocationService>;
