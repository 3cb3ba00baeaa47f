import { Type } from 'typebox';
import { defineOperation, readErrors } from '../define-operation.js';
import { ProjectCard } from '../schemas.js';
import { card } from './examples.js';
import { ProjectIdQuery } from './shared.js';

export const getProject = defineOperation({
  method: 'GET',
  path: '/projects/get.php',
  scope: 'projects:read',
  tag: 'projects',
  body: 'none',
  status: 200,
  summary: 'A project card',
  description: 'The project card. A project the user cannot see answers 404 `not_found`, exactly like one that does not exist.',
  query: ProjectIdQuery,
  data: Type.Object({ project: ProjectCard }),
  audit: { entity: 'project', field: 'id' },
  errors: readErrors('not_found', 'validation_error'),
  examples: { query: { id: '1' }, data: { project: card } },
  handler: ({ user, query }, { projects }) => projects.getProject(user, Number(query.id)),
  client: { positional: ['id'] },
});
