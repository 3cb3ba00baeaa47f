import { type Actor, projectLimit, withinProjectLimit } from '../../domain/policy.js';
import { type EventType, MAX_EVENT_WAIT_SECONDS } from '../../domain/values.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { EventQuery, EventsRepository, EventVisibility } from './events.repository.js';

/** How often, while somebody waits, the database is asked for events committed by another node. */
const OTHER_NODES_POLL_MS = 500;

export interface EventView {
  id: number;
  type: EventType;
  at: string;
  project_id: number;
  item_id: number | null;
  actor: { id: number; name: string } | null;
  token_id: number | null;
  data: unknown;
}

/** One page of the change feed (v1 events/list): `next_after` is the cursor of the next page. */
export interface EventPage {
  events: EventView[];
  next_after: number;
  has_more: boolean;
}

/** An item's events with the names of the people and checklists they refer to (the web timeline). */
export interface ItemEvents {
  events: EventView[];
  names: { users: Map<number, string>; checklists: Map<number, string> };
}

export interface ListEventsInput extends EventQuery {
  /** Seconds to wait for a first matching event when there is none yet (long polling), 0–30. */
  wait: number;
}

/**
 * Wakes the readers waiting for new events: at once for a commit on this node (`committed`), and, while
 * anybody waits, by one shared poll of the last event id for commits on other nodes. A parked reader is a
 * pending promise and a timer: it costs no CPU while it waits. No wake-up is lost: a reader takes a `mark`
 * before it reads, and `next` returns at once if anything was committed since.
 */
function createWaiters(lastId: () => Promise<number>) {
  const waiting = new Set<() => void>();
  let generation = 0;
  let latest = 0;
  let poll: NodeJS.Timeout | null = null;
  const wakeAll = () => {
    for (const wake of [...waiting]) wake();
  };
  const tick = () => {
    lastId()
      .then((id) => {
        if (id > latest) {
          latest = id;
          wakeAll();
        }
      })
      .catch(() => {}); // a database hiccup: the next tick asks again
  };
  return {
    committed() {
      generation++;
      wakeAll();
    },
    async mark() {
      return { generation, lastId: await lastId() };
    },
    /** Resolves at the next commit after `mark` (at once if there was one already), or after `ms`. */
    async next(mark: { generation: number; lastId: number }, ms: number): Promise<void> {
      if (generation !== mark.generation) return;
      latest = Math.max(latest, mark.lastId);
      if (!poll) {
        poll = setInterval(tick, OTHER_NODES_POLL_MS);
        poll.unref();
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiting.delete(done);
          if (waiting.size === 0 && poll) {
            clearInterval(poll);
            poll = null;
          }
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiting.add(done);
      });
    },
    close() {
      wakeAll();
      if (poll) clearInterval(poll);
      poll = null;
    },
  };
}

function toView(r: Awaited<ReturnType<EventsRepository['list']>>[number]): EventView {
  return {
    id: r.id,
    type: r.type as EventType,
    at: r.at,
    project_id: r.project_id,
    item_id: r.item_id,
    actor: r.actor_id === null ? null : { id: r.actor_id, name: r.actor_name ?? '' },
    token_id: r.token_id,
    data: JSON.parse(r.data) as unknown,
  };
}

export interface EventsDeps {
  repo: EventsRepository;
  projectsRepo: ProjectsRepository;
  projects: ProjectsService;
  /** The item's access check (features/items): a feed of one item needs its reader to see it. */
  items: { access(actor: Actor, itemId: number): Promise<unknown> };
}

type Waiters = ReturnType<typeof createWaiters>;

async function visibilityOf(deps: EventsDeps, actor: Actor): Promise<EventVisibility> {
  // A token's project limit narrows what the user sees (docs/design.md §18): an admin's token to its projects.
  const limit = projectLimit(actor);
  if (actor.role === 'admin')
    return limit === null ? 'all' : limit.map((projectId) => ({ projectId, sectionIds: null, checklistIds: null }));
  const memberships = await deps.projectsRepo.allMemberships(actor.id);
  return [...memberships]
    .filter(([projectId]) => withinProjectLimit(actor, projectId))
    .map(([projectId, m]) => ({ projectId, sectionIds: m.sectionIds, checklistIds: m.checklistIds, companyItems: m.companyItems }));
}

/** Events after `after`, oldest first; waits up to `wait` seconds for the first one when there is none. */
async function list(deps: EventsDeps, waiters: Waiters, actor: Actor, input: ListEventsInput): Promise<EventPage> {
  if (input.projectId !== null) await deps.projects.access(actor, input.projectId);
  if (input.itemId !== null) await deps.items.access(actor, input.itemId);
  const deadline = Date.now() + Math.min(input.wait, MAX_EVENT_WAIT_SECONDS) * 1000;
  const query = { ...input, limit: input.limit + 1 };
  for (;;) {
    const mark = await waiters.mark();
    // Visibility is read again each time: access lost while waiting is lost at once.
    const rows = await deps.repo.list(await visibilityOf(deps, actor), query, mark.lastId);
    const remaining = deadline - Date.now();
    if (rows.length > 0 || remaining <= 0) {
      const page = rows.slice(0, input.limit);
      const events = page.map(toView);
      return { events, next_after: events.at(-1)?.id ?? input.after, has_more: rows.length > input.limit };
    }
    await waiters.next(mark, remaining);
  }
}

/**
 * The first event after `after` and up to `upTo` (a `lastId()` read before) that matches and that the
 * reader can see now (webhook deliveries), or null.
 */
async function nextFor(
  deps: EventsDeps,
  reader: Actor,
  query: { after: number; upTo: number; projectId: number | null; types: readonly EventType[] | null },
): Promise<EventView | null> {
  const { upTo, ...filters } = query;
  const [row] = await deps.repo.list(await visibilityOf(deps, reader), { ...filters, itemId: null, limit: 1 }, upTo);
  return row ? toView(row) : null;
}

/** One event, if the reader can see it now (redelivery). */
async function findFor(deps: EventsDeps, reader: Actor, eventId: number): Promise<EventView | null> {
  const [row] = await deps.repo.list(
    await visibilityOf(deps, reader),
    { after: eventId - 1, limit: 1, projectId: null, itemId: null, types: null },
    eventId,
  );
  return row?.id === eventId ? toView(row) : null;
}

/**
 * An item's events, oldest first, with the names of the people and checklists they refer to (the web
 * timeline). The caller has checked that the reader sees the item: every event of it is then visible.
 */
async function ofItem(deps: EventsDeps, itemId: number): Promise<ItemEvents> {
  const events = (await deps.repo.ofItem(itemId)).map(toView);
  const userIds = new Set<number>();
  const checklistIds = new Set<number>();
  for (const e of events) {
    const changes = (e.data as { changes?: { participants?: { from: number[]; to: number[] }; checklist?: { from: number; to: number } } })
      .changes;
    for (const id of [...(changes?.participants?.from ?? []), ...(changes?.participants?.to ?? [])]) userIds.add(id);
    if (changes?.checklist) [changes.checklist.from, changes.checklist.to].forEach((id) => checklistIds.add(id));
    for (const p of (e.data as { item?: { participants?: { id: number }[] } }).item?.participants ?? []) userIds.add(p.id);
  }
  return { events, names: await deps.repo.names([...userIds], [...checklistIds]) };
}

/**
 * The change feed (docs/design.md §11): events written in the transaction of their change (the item write path
 * calls `append`), read by whoever may see what they are about, decided when the feed is read.
 */
export function createEventsService(deps: EventsDeps) {
  const { repo } = deps;
  const waiters = createWaiters(() => repo.lastId());
  const committedListeners: (() => void)[] = [];

  return {
    append: repo.append,

    /** The newest event's id (0 when there is none). */
    lastId: () => repo.lastId(),

    /** Call once the transaction that appended events has committed. */
    committed() {
      waiters.committed();
      for (const listener of committedListeners) listener();
    },

    list: (actor: Actor, input: ListEventsInput) => list(deps, waiters, actor, input),
    nextFor: nextFor.bind(null, deps),
    findFor: findFor.bind(null, deps),
    ofItem: ofItem.bind(null, deps),

    /** Runs `listener` after every commit with events on this node (the webhook worker's wake-up). */
    onCommitted(listener: () => void) {
      committedListeners.push(listener);
    },

    close: waiters.close,
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
