import type { Kysely, Transaction } from 'kysely';
import type { TransactionRunner } from '../../db/group-commit.js';
import type { Clock } from '../../shared/clock.js';
import type { Database, NewAuditRecord } from '../../db/tables.js';
import type { Actor, ItemAction, ItemTarget } from '../../domain/policy.js';
import type { EventType } from '../../domain/values.js';
import type { AuditService } from '../audit/audit.service.js';
import type { NewEvent } from '../events/events.repository.js';
import { notFound } from '../../shared/errors.js';
import { lockItem, lockProject } from './items.repository.js';
import type { ItemsService } from './items.service.js';
import type { WriteRepositories } from './write-repositories.js';

/**
 * Builds the audit record of the request a write serves. The caller (an API handler) knows the
 * request; the write calls it inside its transaction so the record commits with the change.
 */
export type AuditEntryBuilder = () => NewAuditRecord;

/** Records an event of the change being written (docs/design.md §11); it commits with the change or not at all. */
export type EmitEvent = (type: EventType, data: unknown) => void;

/** Where in the project an event of a project-level write happened (what decides who sees it). */
export interface EventPlace {
  section_id?: number | null;
  checklist_id?: number | null;
  item_id?: number | null;
}

/** Records an event of a project-level write (structure): its place is known only once the write made it. */
export type EmitPlacedEvent = (type: EventType, data: unknown, place: EventPlace) => void;

type FullPlace = Required<EventPlace> & { project_id: number };

/** Where the events of item writes go: appended in the write's transaction, announced once it committed. */
export interface EventOutbox {
  append(trx: Kysely<Database>, events: readonly NewEvent[]): Promise<void>;
  committed(): void;
}

/** Who writes, the policy's check made under the lock (when given), and the audit record of the request. */
interface WriteRequest {
  actor: Actor;
  /** Builds the audit record: it commits with the change. */
  audit?: AuditEntryBuilder | undefined;
}

/** An item write: the access check (`action`, each one when several) runs under the item's lock. */
export interface ItemWriteRequest extends WriteRequest {
  itemId: number;
  /** The policy's actions the write needs (none: the caller checked before, e.g. before converting uploads). */
  action?: ItemAction | readonly ItemAction[];
  /** Facts of the target beyond the item's own (the author of the answer reviewed). */
  extra?: Partial<ItemTarget>;
}

/** A project-level write (structure): `authorize` runs under the project's lock, on the write's repositories. */
export interface ProjectWriteRequest extends WriteRequest {
  projectId: number;
  authorize?: (repos: WriteRepositories) => Promise<unknown>;
}

/**
 * The one write path of an item (STYLE.md 13), for v1 and the web alike: a transaction that first takes the
 * item's row lock, then runs the access check (when asked, so that it sees what the write will change), the
 * write, the audit record (when given) and the events the write emitted.
 * The transaction comes from `transactions` (db/group-commit.ts): on SQLite concurrent writes share
 * one COMMIT, each in its own savepoint, and each answers only once that COMMIT is done. The lock is a self-assignment UPDATE, portable across dialects: on PostgreSQL it serializes
 * concurrent writers of the same item (so a read-then-write such as a status change or a links replacement
 * cannot interleave); SQLite serializes every write transaction anyway.
 *
 * The write gets the repositories bound to the transaction (write-repositories.ts), never a database handle:
 * on SQLite the transaction holds the only connection, so a statement on the root database would wait for ever.
 */
export function createItemWriter(deps: {
  transactions: TransactionRunner;
  repositories: (trx: Transaction<Database>) => WriteRepositories;
  items: Pick<ItemsService, 'authorize'>;
  audit: AuditService;
  events: EventOutbox;
  clock: Clock;
}) {
  const { transactions, repositories, items, audit, events, clock } = deps;

  /**
   * One transaction: `lock` takes the row lock (undefined: the row does not exist, 404, `missing`), then the
   * access check, the write, its audit record and its events; the events are announced once it committed.
   */
  async function locked<T, R>(
    request: WriteRequest & { authorize?: ((repos: WriteRepositories) => Promise<unknown>) | undefined },
    lock: { take: (trx: Transaction<Database>) => Promise<R | undefined>; missing: string; place: (row: R) => FullPlace },
    write: (
      repos: WriteRepositories,
      emit: (type: EventType, data: unknown, place: EventPlace & { project_id?: number }) => void,
    ) => Promise<T>,
  ): Promise<T> {
    // The records of requests that finished before this write (queued reads) are written first, once per
    // request, by the request's entry (v1: operation-route.ts; the web: web-write.ts), not once per item written.
    let emitted = false;
    const result = await transactions.run(async (trx) => {
      const row = await lock.take(trx);
      if (!row) throw notFound(lock.missing);
      const repos = repositories(trx);
      await request.authorize?.(repos);
      const pending: NewEvent[] = [];
      const at = clock.now().toISOString();
      const actor_id = request.actor.id;
      const base = lock.place(row);
      const value = await write(
        repos,
        (type, data, place) => void pending.push({ type, data, at, actor_id, token_id: null, ...base, ...place }),
      );
      const record = request.audit?.();
      if (record) await audit.record(record, trx);
      await events.append(
        trx,
        pending.map((e) => ({ ...e, token_id: record?.token_id ?? null })),
      );
      emitted = pending.length > 0;
      return value;
    });
    if (emitted) events.committed();
    return result;
  }

  const nowhere = { section_id: null, checklist_id: null, item_id: null };

  return {
    /** A write that creates what it is about (a project): no row to lock yet; each event names its project. */
    writeNew<T>(
      request: WriteRequest,
      write: (
        repos: WriteRepositories,
        emit: (type: EventType, data: unknown, place: EventPlace & { project_id: number }) => void,
      ) => Promise<T>,
    ): Promise<T> {
      const lock = { take: async () => true, missing: 'The row', place: () => ({ ...nowhere, project_id: 0 }) };
      return locked(request, lock, write);
    },

    write<T>(request: ItemWriteRequest, write: (repos: WriteRepositories, emit: EmitEvent) => Promise<T>): Promise<T> {
      const { actor, itemId, action, extra } = request;
      const actions = action === undefined ? [] : typeof action === 'string' ? [action] : action;
      const authorize = actions.length
        ? async (repos: WriteRepositories) => {
            for (const each of actions) await items.authorize(actor, itemId, each, extra, repos);
          }
        : undefined;
      const lock = {
        take: (trx: Transaction<Database>) => lockItem.executeTakeFirst({ itemId }, trx),
        missing: 'The item',
        place: (item: { project_id: number; section_id: number; checklist_id: number }) => ({ ...item, item_id: itemId }),
      };
      return locked({ ...request, authorize }, lock, (repos, emit) => write(repos, (type, data) => emit(type, data, {})));
    },

    /**
     * The project-level counterpart (structure: sections, checklists, new items): the project's row lock
     * instead of the item's, so that concurrent structural edits of one project serialize (positions, names).
     */
    writeProject<T>(request: ProjectWriteRequest, write: (repos: WriteRepositories, emit: EmitPlacedEvent) => Promise<T>): Promise<T> {
      const lock = {
        take: (trx: Transaction<Database>) => lockProject.executeTakeFirst({ projectId: request.projectId }, trx),
        missing: 'The project',
        place: () => ({ ...nowhere, project_id: request.projectId }),
      };
      return locked(request, lock, write);
    },
  };
}

export type ItemWriter = ReturnType<typeof createItemWriter>;
