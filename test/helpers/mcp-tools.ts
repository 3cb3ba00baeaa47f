import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

/** The tools of the MCP server and how its results read (mcp.test.ts). */

export const ALL_TOOLS = [
  'whoami',
  'list_projects',
  'get_project_tree',
  'search_project',
  'get_item',
  'list_plans',
  'set_item_status',
  'set_item_planning',
  'add_comment',
  'add_answer',
  'replace_item_links',
  'attach_item_images',
  'attach_answer_images',
  'list_events',
  'get_project_report',
];

export const READ_TOOLS = [
  'whoami',
  'list_projects',
  'get_project_tree',
  'search_project',
  'get_item',
  'list_plans',
  'list_events',
  'get_project_report',
];

export const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

export function dataOf(result: CallToolResult): any {
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const first = result.content[0];
  expect(first?.type).toBe('text');
  const data = JSON.parse(first?.type === 'text' ? first.text : 'null');
  expect(result.structuredContent).toEqual(data);
  return data;
}

/** A failed call: no structuredContent (it would have to match the success outputSchema), the API's error in the text. */
export function errorOf(result: CallToolResult): { code: string; status: number; text: string } {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const first = result.content[0];
  const text = first?.type === 'text' ? first.text : '';
  const [, status = '0', code = ''] = /^Punchlist API error (\d{3}) ([a-z_]+):/.exec(text) ?? [];
  return { code, status: Number(status), text };
}
