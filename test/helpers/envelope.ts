import { expect } from 'vitest';

export interface CallResult {
  status: number;
  body: any;
  headers: Headers;
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/** `meta` of docs/design.md §5 / spec §2: request_id equal to the X-Request-Id header, v1, a current UTC timestamp. */
export function expectMeta(res: CallResult) {
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  const meta = res.body?.meta;
  expect(meta, JSON.stringify(res.body)).toBeTypeOf('object');
  expect(meta.request_id).toBeTypeOf('string');
  expect(meta.request_id.length).toBeGreaterThan(0);
  expect(res.headers.get('x-request-id')).toBe(meta.request_id);
  expect(meta.api_version).toBe('v1');
  expect(meta.timestamp).toMatch(ISO_UTC);
  expect(new Date(meta.timestamp).toISOString().slice(0, 19)).toBe(meta.timestamp.slice(0, 19));
  expect(Math.abs(Date.now() - Date.parse(meta.timestamp))).toBeLessThan(60_000);
}

/** The error envelope with this status and code. */
export function expectError(res: CallResult, status: number, code: string) {
  expect({ status: res.status, code: res.body?.error?.code }, JSON.stringify(res.body)).toEqual({ status, code });
  expect(res.body.ok).toBe(false);
  expect(res.body).not.toHaveProperty('data');
  expect(res.body.error.message).toBeTypeOf('string');
  expect(res.body.error.message.trim().length).toBeGreaterThan(0);
  expectMeta(res);
}

/** The success envelope; returns `data`. */
export function expectOk(res: CallResult, status = 200): any {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.ok).toBe(true);
  expect(res.body).not.toHaveProperty('error');
  expectMeta(res);
  return res.body.data;
}

export const ISO_DATE_TIME = ISO_UTC;
