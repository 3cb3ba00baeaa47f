import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Operation, OperationRegistry } from '../api/v1/define-operation.js';
import { OPERATIONS } from '../api/v1/operations.js';
import { PunchlistApiError } from '../client/index.js';
import { ToolInputError } from '../api/v1/operations/tool-inputs.js';
import { publicSchema } from '../api/v1/schemas.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { toolInputSchema, toolRequest } from './tool-input.js';

const MCP_SERVER_NAME = 'punchlist';
export const MCP_SERVER_VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** What to tell the agent after a failed call, by error code: the spec's "report, don't work around". */
function adviceFor(error: PunchlistApiError): string {
  switch (error.code) {
    case 'unauthorized':
    case 'token_invalid':
    case 'token_revoked':
    case 'token_expired':
      return 'The API token cannot be used. Tell the user; a new token is needed. Do not retry.';
    case 'scope_missing':
      return 'The API token lacks the scope for this operation. Tell the user; do not try to reach the same result another way.';
    case 'forbidden':
      return 'The user is not allowed to do this. Tell the user; do not try another way.';
    case 'not_found':
      return 'It does not exist or the user cannot see it. Tell the user; do not guess other ids (search_project finds ids).';
    case 'validation_error':
      return 'The input was refused. Tell the user what was refused; do not retry with workarounds.';
    case 'rate_limited':
      return `Too many requests with this token. Wait ${error.retryAfterSeconds ?? 60} seconds before the next call.`;
    case 'idempotency_conflict':
      return 'A request with the same idempotency key conflicts. Tell the user.';
    default:
      return error.status === 0 || error.status >= 500
        ? 'The service failed or could not be reached. Tell the user; it may work again later.'
        : 'Tell the user; do not retry with workarounds.';
  }
}

function errorResult(error: PunchlistApiError): CallToolResult {
  const details = error.details?.map((d) => `${d.field}: ${d.message}`).join('; ');
  const text = [
    `Punchlist API error ${error.status} ${error.code}: ${error.message}`,
    details && details !== error.message ? `Details: ${details}` : '',
    error.requestId ? `request_id: ${error.requestId}` : '',
    adviceFor(error),
  ]
    .filter(Boolean)
    .join('\n');
  // No structuredContent: it would have to match the tool's outputSchema, which describes a success.
  return { isError: true, content: [{ type: 'text', text }] };
}

/** An MCP tool: the `mcp` block of a v1 operation's definition (docs/design.md §9 fixes the names), with the operation behind it. */
interface ToolDefinition {
  /** The operation's id: the tool calls it through the client. */
  operation: string;
  op: Operation;
  mcp: NonNullable<Operation['mcp']>;
}

/** What a tool needs of the typed client: a call of an operation by id. */
interface ToolClient {
  call(id: string, input: object): Promise<unknown>;
}

/** The tools of the operations that declare one, in the operations' order. */
function toolsOf(operations: OperationRegistry): ToolDefinition[] {
  return Object.entries(operations).flatMap(([operation, op]) => (op.mcp ? [{ operation, op, mcp: op.mcp }] : []));
}

/** The tools a token with these scopes may use (its operation's scope); in read-only mode, only those that change nothing. */
function toolsFor(scopes: readonly string[], readOnly = false, operations: OperationRegistry = OPERATIONS): ToolDefinition[] {
  return toolsOf(operations).filter((tool) => scopes.includes(tool.op.scope) && (!readOnly || tool.mcp.hints.readOnlyHint));
}

/** A tool as tools/list shows it: name, title and annotations of its operation, its input, and the operation's `data` as output. */
function listed({ op, mcp }: ToolDefinition): Tool {
  return {
    name: mcp.tool,
    title: mcp.title,
    description: mcp.description,
    inputSchema: publicSchema(toolInputSchema(op, mcp)),
    outputSchema: publicSchema(op.data),
    annotations: { title: mcp.title, ...mcp.hints, openWorldHint: false },
  };
}

/**
 * An MCP server over the typed client of one token. `scopes` decide the tools it lists and accepts
 * (the v1 operation behind each tool checks the scope again, and audits the call).
 */
export function createMcpServer(options: {
  client: ToolClient;
  scopes: readonly string[];
  readOnly?: boolean;
  operations?: OperationRegistry;
}) {
  const tools = toolsFor(options.scopes, options.readOnly, options.operations);
  const server = new Server(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map(listed) }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = tools.find((t) => t.mcp.tool === request.params.name);
    if (!tool) {
      const why = options.readOnly ? "not allowed by this token's scopes, or not read-only" : "or not allowed by this token's scopes";
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${request.params.name}" (${why})`);
    }
    try {
      // The arguments go to v1 as given (it validates them); only the renaming of the definition runs here.
      const data = await options.client.call(tool.operation, toolRequest(tool.op, tool.mcp, request.params.arguments ?? {}));
      return {
        content: [{ type: 'text', text: tool.mcp.text ? tool.mcp.text(data as never) : JSON.stringify(data, null, 2) }],
        structuredContent: data as Record<string, unknown>,
      };
    } catch (err) {
      if (err instanceof PunchlistApiError) return errorResult(err);
      if (err instanceof ToolInputError) {
        return { isError: true, content: [{ type: 'text', text: `Invalid arguments: ${err.message}. Nothing was sent to Punchlist.` }] };
      }
      throw err;
    }
  });

  return server;
}
