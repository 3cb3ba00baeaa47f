import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { OPERATIONS } from '../api/v1/operations.js';
import { PunchlistApiError, type PunchlistClient } from '../client/index.js';
import { SERVER_INSTRUCTIONS, type ToolDefinition, ToolInputError, toolMetadata, toolsFor } from './tools.js';

export const MCP_SERVER_NAME = 'punchlist';
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

/** Tool schemas as plain JSON Schema, without this codebase's validation-message keyword. */
function plainSchema(schema: unknown): { type: 'object'; [key: string]: unknown } {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === 'errorMessage' && typeof value === 'string' ? undefined : value)));
}

/** A tool as tools/list shows it: name, title and annotations of its operation, its input, and the operation's `data` as output. */
function listed(tool: ToolDefinition): Tool {
  const { name, title, hints } = toolMetadata(tool);
  return {
    name,
    title,
    description: tool.description,
    inputSchema: plainSchema(tool.inputSchema),
    outputSchema: plainSchema(OPERATIONS[tool.operation].data),
    annotations: { title, ...hints, openWorldHint: false },
  };
}

/**
 * An MCP server over the typed client of one token. `scopes` decide the tools it lists and accepts
 * (the v1 operation behind each tool checks the scope again, and audits the call).
 */
export function createMcpServer(options: { client: PunchlistClient; scopes: readonly string[]; readOnly?: boolean }) {
  const tools = toolsFor(options.scopes, options.readOnly);
  const server = new Server(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map(listed) }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = tools.find((t) => toolMetadata(t).name === request.params.name);
    if (!tool) {
      const why = options.readOnly ? "not allowed by this token's scopes, or not read-only" : "or not allowed by this token's scopes";
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${request.params.name}" (${why})`);
    }
    try {
      const data = await tool.run(options.client, request.params.arguments ?? {});
      return {
        content: [{ type: 'text', text: JSON.stringify(data, null, 2) }],
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
