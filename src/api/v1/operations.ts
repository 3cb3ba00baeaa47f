import type { Static } from 'typebox';
import type { OperationRegistry } from './define-operation.js';
import { addAnswer } from './operations/add-answer.js';
import { addComment } from './operations/add-comment.js';
import { attachAnswerImages } from './operations/attach-answer-images.js';
import { attachItemImages } from './operations/attach-item-images.js';
import { getItem } from './operations/get-item.js';
import { getProject } from './operations/get-project.js';
import { getProjectReport } from './operations/get-project-report.js';
import { getPlan } from './operations/get-plan.js';
import { getProjectTree } from './operations/get-project-tree.js';
import { listEvents } from './operations/list-events.js';
import { listPlans } from './operations/list-plans.js';
import { listProjects } from './operations/list-projects.js';
import { me } from './operations/me.js';
import { replaceItemLinks } from './operations/replace-item-links.js';
import { searchProject } from './operations/search-project.js';
import { setItemPlanning } from './operations/set-item-planning.js';
import { setItemStatus } from './operations/set-item-status.js';

export { type Operation, type OperationRegistry, V1_BASE_PATH } from './define-operation.js';

/**
 * The v1 operations, in the order the OpenAPI document and the MCP tool list show them. Each is defined
 * once, in its own file under operations/ (method, path, scope, schemas, prose and examples, audit
 * entity, handler, client method and MCP tool: see define-operation.ts); the routes (v1-plugin.ts), the
 * OpenAPI document (openapi.ts), the typed client (src/client/) and the MCP tools (src/mcp/server.ts)
 * are derived from this list, and the tests walk it. Adding an operation: its file, and its line here.
 */
export const OPERATIONS = {
  me,
  listProjects,
  getProject,
  getProjectTree,
  searchProject,
  getItem,
  listPlans,
  getPlan,
  setItemStatus,
  setItemPlanning,
  addComment,
  addAnswer,
  replaceItemLinks,
  attachItemImages,
  attachAnswerImages,
  listEvents,
  getProjectReport,
} satisfies OperationRegistry;

export type OperationId = keyof typeof OPERATIONS;

export const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[];

/** The envelope's `data` of an operation. */
export type OperationData<Id extends OperationId> = Static<(typeof OPERATIONS)[Id]['data']>;
