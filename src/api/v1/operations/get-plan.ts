import { Type } from 'typebox';
import { defineOperation, readErrors } from '../define-operation.js';
import { Plan, QueryId } from '../schemas.js';
import { plan } from './examples.js';
import { strict } from './shared.js';

export const getPlan = defineOperation({
  method: 'GET',
  path: '/plans/get.php',
  scope: 'projects:read',
  tag: 'plans',
  body: 'none',
  status: 200,
  summary: 'A plan with the pins the user can see',
  description:
    'One plan, as `plans/list.php` shows each: its current version, earlier versions, and the pins of the items the ' +
    'user can see. A plan of a project the user cannot see answers 404 `not_found`, like one that does not exist.',
  query: strict({ id: QueryId('The plan id') }),
  data: Type.Object({ plan: Plan }),
  errors: readErrors('not_found', 'validation_error'),
  examples: { query: { id: '1' }, data: { plan } },
  handler: ({ user, query }, { plans }) => plans.getPlan(user, Number(query.id)),
  client: { positional: ['id'] },
});
