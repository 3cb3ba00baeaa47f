import { Type } from 'typebox';
import { defineOperation, readErrors } from '../define-operation.js';
import { LIMIT, Limit, Offset, ProjectCard } from '../schemas.js';
import { card } from './examples.js';
import { READ, strict } from './shared.js';

const ARCHIVED = { false: 'active', '0': 'active', true: 'archived', '1': 'archived', all: 'all' } as const;

export const listProjects = defineOperation({
  method: 'GET',
  path: '/projects/list.php',
  scope: 'projects:read',
  tag: 'projects',
  body: 'none',
  status: 200,
  summary: 'Projects the user can see, ordered by id',
  description:
    'Ordered by id. `limit` 1–200 (default 50), `offset` ≥ 0 (default 0); `archived`: `false`/`0` (default, active ' +
    'projects only), `true`/`1` (archived only) or `all`. Values outside those are refused with 422, never clamped. ' +
    'Progress and counters count only what the user can see.',
  query: strict({
    limit: Type.Optional(Limit()),
    offset: Type.Optional(Offset('Projects to skip (default 0)')),
    archived: Type.Optional(
      Type.Enum(['false', '0', 'true', '1', 'all'], {
        description: '`false` or `0` (default): active projects only; `true` or `1`: archived only; `all`: both',
      }),
    ),
  }),
  data: Type.Object({ projects: Type.Array(ProjectCard), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
  errors: readErrors('validation_error'),
  examples: {
    query: { limit: '50', offset: '0', archived: 'false' },
    data: { projects: [card], total: 1, limit: 50, offset: 0 },
  },
  handler: ({ user, query: { limit = String(LIMIT.default), offset = '0', archived = 'false' } }, { projects }) =>
    projects.listProjects(user, { archived: ARCHIVED[archived], limit: Number(limit), offset: Number(offset) }),
  client: { positional: [], rest: 'query' },
  mcp: {
    tool: 'list_projects',
    title: 'List projects',
    hints: READ,
    description:
      'Lists the projects the user can see, by id, with progress and counters. archived: "false" (default, active ' +
      'only), "true" (archived only) or "all".',
  },
});
