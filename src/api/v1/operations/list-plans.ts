import { Type } from 'typebox';
import { ProjectIdArgument } from './tool-inputs.js';
import { defineOperation, readErrors } from '../define-operation.js';
import { Plan, QueryId } from '../schemas.js';
import { plan } from './examples.js';
import { READ, strict } from './shared.js';

export const listPlans = defineOperation({
  method: 'GET',
  path: '/plans/list.php',
  scope: 'projects:read',
  tag: 'plans',
  body: 'none',
  status: 200,
  summary: 'The plans of a project, each with the pins the user can see',
  description:
    'The drawings of a project in their order (docs/design.md §19), each at its current version (`version`, the sheet’s ' +
    '`width` × `height` in pixels, earlier versions in `versions`), with a pin per item placed on it that the user ' +
    'can see: `x`, `y` are fractions of the sheet from its top left, `status` the item’s. A user with partial access ' +
    'gets the pins of the items they see only. The sheet itself: `file_url` (`/api/plans/file.php`).',
  query: strict({ project_id: QueryId('The project id') }),
  data: Type.Object({ plans: Type.Array(Plan) }),
  audit: { entity: 'project', field: 'project_id' },
  errors: readErrors('not_found', 'validation_error'),
  examples: { query: { project_id: '1' }, data: { plans: [plan] } },
  handler: ({ user, query }, { plans }) => plans.listPlans(user, Number(query.project_id)),
  client: { positional: ['project_id'] },
  mcp: {
    tool: 'list_plans',
    title: 'List the plans of a project',
    hints: READ,
    description:
      'Returns the drawings (plans) of a project with, for each, the pins of the items the user can see: item_id, ' +
      'x and y (fractions of the sheet from its top left) and status. Use it to tell where defects are; the item ' +
      'card (get_item) names its plan in `location`.',
    rename: { project_id: ProjectIdArgument },
  },
});
