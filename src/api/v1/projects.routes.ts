import { Type } from 'typebox';
import { setAuditEntity } from '../request-state.js';
import { Envelope, ok } from '../envelope.js';
import { ItemSummary, Limit, Offset, ProjectCard, QueryId } from './schemas.js';
import type { V1App } from './plugin.js';

const ARCHIVED = { false: 'active', '0': 'active', true: 'archived', '1': 'archived', all: 'all' } as const;

const ListQuery = Type.Object({
  limit: Type.Optional(Limit),
  offset: Type.Optional(Offset),
  archived: Type.Optional(Type.Enum(Object.keys(ARCHIVED) as (keyof typeof ARCHIVED)[])),
});

const Tree = Type.Object({
  project: ProjectCard,
  sections: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      position: Type.Integer(),
      checklists: Type.Array(
        Type.Object({ id: Type.Integer(), name: Type.String(), position: Type.Integer(), items: Type.Array(ItemSummary) }),
      ),
    }),
  ),
});

const ById = Type.Object({ id: QueryId });

export async function projectsRoutes(app: V1App) {
  const { projects } = app.ctx;

  app.get(
    '/projects/list.php',
    {
      config: { scope: 'projects:read' },
      schema: {
        summary: 'Projects the user can see, ordered by id',
        querystring: ListQuery,
        response: {
          200: Envelope(
            Type.Object({ projects: Type.Array(ProjectCard), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
          ),
        },
      },
    },
    async (request) => {
      const { limit = '50', offset = '0', archived = 'false' } = request.query;
      const data = await projects.listProjects(request.principal!.user, {
        archived: ARCHIVED[archived],
        limit: Number(limit),
        offset: Number(offset),
      });
      return ok(request, data);
    },
  );

  app.get(
    '/projects/get.php',
    {
      config: { scope: 'projects:read' },
      schema: { summary: 'A project card', querystring: ById, response: { 200: Envelope(Type.Object({ project: ProjectCard })) } },
    },
    async (request) => {
      setAuditEntity(request, 'project', Number(request.query.id));
      return ok(request, await projects.getProject(request.principal!.user, Number(request.query.id)));
    },
  );

  app.get(
    '/projects/tree.php',
    {
      config: { scope: 'projects:read' },
      schema: { summary: 'A project with the sections, checklists and items the user can see', querystring: ById, response: { 200: Envelope(Tree) } },
    },
    async (request) => {
      setAuditEntity(request, 'project', Number(request.query.id));
      return ok(request, await projects.getTree(request.principal!.user, Number(request.query.id)));
    },
  );
}
