import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ItemAction, ItemTarget } from '../../domain/policy.js';
import type { EmitEvent, EmitPlacedEvent, ProjectWriteRequest, WritePath, WriteRequest } from '../write-path/write-path.js';
import { lockItem } from './items.repository.js';
import type { ItemsService } from './items.service.js';
import type { WriteRepositories } from './write-repositories.js';

/** An item write: the access check (`action`, each one when several) runs under the item's lock. */
export interface ItemWriteRequest extends WriteRequest {
  itemId: number;
  /** The policy's actions the write needs (none: the caller checked before, e.g. before converting uploads). */
  action?: ItemAction | readonly ItemAction[];
  /** Facts of the target beyond the item's own (the author of the answer reviewed). */
  extra?: Partial<ItemTarget>;
}

/**
 * The item's write path (STYLE.md 13): the one write path (features/write-path/) over the item aggregate's
 * repositories, with the item's row lock and its access check under that lock. New items are project-level
 * writes (the project's lock: positions in a checklist).
 */
export function createItemWriter(deps: { path: WritePath<WriteRepositories>; items: Pick<ItemsService, 'authorize'> }) {
  const { path, items } = deps;
  return {
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
      return path.locked({ ...request, authorize }, lock, (repos, emit) => write(repos, (type, data) => emit(type, data, {})));
    },

    writeProject<T>(
      request: ProjectWriteRequest<WriteRepositories>,
      write: (repos: WriteRepositories, emit: EmitPlacedEvent) => Promise<T>,
    ): Promise<T> {
      return path.writeProject(request, write);
    },
  };
}

export type ItemWriter = ReturnType<typeof createItemWriter>;
