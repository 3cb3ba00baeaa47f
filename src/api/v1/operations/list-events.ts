import { Type } from 'typebox';
import { EVENT_TYPES, type EventType, MAX_EVENT_WAIT_SECONDS } from '../../../domain/values.js';
import { defineOperation, readErrors } from '../define-operation.js';
import { Event, integerText, OPENAPI_TYPE, QueryId } from '../schemas.js';
import { validationError } from '../../../shared/errors.js';
import { AT } from './examples.js';
import { READ, strict } from './shared.js';

const EVENTS_LIMIT = { default: 100, max: 500 };

const TYPE_PATTERN = EVENT_TYPES.map((t) => t.replace('.', '\\.')).join('|');

/** The change feed (docs/design.md §11). */
export const listEvents = defineOperation({
  method: 'GET',
  path: '/events/list.php',
  scope: 'events:read',
  tag: 'events',
  body: 'none',
  status: 200,
  summary: 'What changed after an event id, in what the user can see now, oldest first; waits up to `wait` seconds for a first one',
  description:
    'The change feed: every change of an item or what hangs on it (status, planning, links, images, comments, ' +
    'answers, reviews, verdicts, returns to rework) and project verdicts, made through the API or the web, one ' +
    'event each, in commit order. Only events about what the user can see now are listed. Read in a loop: pass ' +
    'the previous `next_after` as `after`; with `wait` (up to 30 s) the call answers as soon as a matching event ' +
    'is committed, or with an empty list when the time is up. Requires the `events:read` scope.',
  query: strict({
    after: Type.Optional(
      integerText(
        Type.String({
          pattern: '^(?:0|[1-9][0-9]{0,15})$',
          errorMessage: 'must be an event id (0 or a positive integer)',
          description: 'Events after this id (default 0: from the oldest kept); pass the previous `next_after`',
          [OPENAPI_TYPE]: { type: 'integer', minimum: 0, default: 0 },
        }),
      ),
    ),
    limit: Type.Optional(
      integerText(
        Type.String({
          pattern: '^(?:[1-9]|[1-9][0-9]|[1-4][0-9]{2}|500)$',
          errorMessage: `must be an integer from 1 to ${EVENTS_LIMIT.max}`,
          description: `Events per page, 1–${EVENTS_LIMIT.max} (default ${EVENTS_LIMIT.default})`,
          [OPENAPI_TYPE]: { type: 'integer', minimum: 1, maximum: EVENTS_LIMIT.max, default: EVENTS_LIMIT.default },
        }),
      ),
    ),
    project_id: Type.Optional(QueryId('Only events of this project')),
    item_id: Type.Optional(QueryId('Only events of this item')),
    types: Type.Optional(
      Type.String({
        pattern: `^(?:${TYPE_PATTERN})(?:,(?:${TYPE_PATTERN}))*$`,
        errorMessage: `must be a comma list of ${EVENT_TYPES.join(', ')}`,
        description: `Only these types (comma list): ${EVENT_TYPES.join(', ')}`,
      }),
    ),
    wait: Type.Optional(
      integerText(
        Type.String({
          pattern: '^(?:[0-9]|[12][0-9]|30)$',
          errorMessage: `must be a number of seconds from 0 to ${MAX_EVENT_WAIT_SECONDS}`,
          description: `Seconds to wait for a first event when there is none yet (long polling), 0–${MAX_EVENT_WAIT_SECONDS} (default 0)`,
          [OPENAPI_TYPE]: { type: 'integer', minimum: 0, maximum: MAX_EVENT_WAIT_SECONDS, default: 0 },
        }),
      ),
    ),
  }),
  data: Type.Object({ events: Type.Array(Event), next_after: Type.Integer(), has_more: Type.Boolean() }),
  audit: { entity: 'project', field: 'project_id' },
  errors: readErrors('not_found', 'validation_error'),
  examples: {
    query: { after: '4810', types: 'item.status_changed,comment.created', wait: '25' },
    data: {
      events: [
        {
          id: 4811,
          type: 'item.status_changed',
          at: AT,
          project_id: 1,
          item_id: 1000,
          actor: { id: 3, name: 'Egor Executor' },
          token_id: 12,
          data: { from: 'in_progress', to: 'done' },
        },
      ],
      next_after: 4811,
      has_more: false,
    },
    // The documented request long-polls 25 s for an event the test workspace never has.
    sample: { query: { after: '0', limit: '5' } },
  },
  handler: ({ user, query }, { events }) => {
    const after = Number(query.after ?? 0);
    // The pattern lets 16 digits through: beyond 2^53 − 1 an id would silently round.
    if (!Number.isSafeInteger(after)) throw validationError('after', `must be an event id up to ${Number.MAX_SAFE_INTEGER}`);
    return events.list(user, {
      after,
      limit: Number(query.limit ?? EVENTS_LIMIT.default),
      projectId: query.project_id === undefined ? null : Number(query.project_id),
      itemId: query.item_id === undefined ? null : Number(query.item_id),
      types: query.types === undefined ? null : (query.types.split(',') as EventType[]),
      wait: Number(query.wait ?? 0),
    });
  },
  client: { positional: [], rest: 'query' },
  mcp: {
    tool: 'list_events',
    title: 'List what changed',
    hints: READ,
    description:
      'Lists what changed (status, planning, links, images, comments, answers, reviews, verdicts) in the projects the ' +
      'user can see, oldest first, after the event id `after` (0: from the oldest kept). Call again with the returned ' +
      '`next_after` to continue; `wait` (seconds, up to 30) waits for the next change instead of returning an empty list; `types` is a comma list.',
  },
});
