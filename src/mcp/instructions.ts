/** What the MCP server tells an agent when it connects (src/mcp/server.ts). */
export const SERVER_INSTRUCTIONS = `Punchlist: projects → sections → checklists → items. Every tool acts as the user who owns the API token, with exactly that user's rights; each call is recorded in the service's audit log.

Recommended flow:
1. Call whoami first: it confirms the token works and shows the user and the token's scopes (tools outside those scopes are not offered).
2. To work on an item, locate it with search_project (or get_project_tree), then use the exact item_id of the hit. Never guess ids.
3. Read the item with get_item before changing it.
4. Errors 401 (token), 403 (scope or right), 404 (not found or not visible) and 422 (invalid input) are answers: report them to the user with the request_id and do not retry with workarounds. 429 means wait the given seconds.`;
