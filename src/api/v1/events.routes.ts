import type { AppContext } from '../../context.js';
import type { EventType } from '../../domain/values.js';
import { EVENTS_LIMIT } from './operations.js';
import type { Handlers } from './operation-route.js';

/** The change feed (DESIGN.md §11). */
export const eventsHandlers = ({ events }: AppContext): Pick<Handlers, 'listEvents'> => ({
  listEvents: ({ user, query }) =>
    events.list(user, {
      after: Number(query.after ?? 0),
      limit: Number(query.limit ?? EVENTS_LIMIT.default),
      projectId: query.project_id === undefined ? null : Number(query.project_id),
      itemId: query.item_id === undefined ? null : Number(query.item_id),
      types: query.types === undefined ? null : (query.types.split(',') as EventType[]),
      wait: Number(query.wait ?? 0),
    }),
});
