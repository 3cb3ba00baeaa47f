import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/scopes.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';

/**
 * The findings of the outside probe (issue #27) on /mcp and v1, each a test that failed before its fix, both
 * dialects. Backups, webhook addresses, TRUST_PROXY and upload temp files have theirs beside their code.
 */
let server: TestServer;
const port = () => Number(new URL(server.url).port);
const MIB = 1024 * 1024;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const ping = (padding = '') => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { padding } } });
const mcpHeaders = (token?: string): [string, string][] => [
  ['Content-Type', 'application/json'],
  ['Accept', 'application/json, text/event-stream'],
  ...(token ? ([['Authorization', `Bearer ${token}`]] as [string, string][]) : []),
];

describe('/mcp', () => {
  it('checks the token before reading the body: announced 40 MiB, a few bytes sent, 401 at once', async () => {
    const res = await rawRequest(port(), {
      method: 'POST',
      target: '/mcp',
      headers: [...mcpHeaders(), ['Content-Length', String(40 * MIB)]],
      body: '{"jsonrpc":',
      timeoutMs: 10_000,
    });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('resource_metadata=');
  });

  it('applies v1’s JSON limit (1 MiB → 413) to a token that cannot upload, announced or streamed', async () => {
    const readOnly = (
      await server.ctx.tokens.createToken({ userId: USERS.manager, name: 'ro', scopes: ['auth:me', 'items:read'], expiresAt: null })
    ).token;
    const big = ping('x'.repeat(MIB + 10));
    const announced = await rawRequest(port(), { method: 'POST', target: '/mcp', headers: mcpHeaders(readOnly), body: big });
    expect(announced.status).toBe(413);
    expect(JSON.parse(announced.body.toString())).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    const chunked = await rawRequest(port(), {
      method: 'POST',
      target: '/mcp',
      headers: [...mcpHeaders(readOnly), ['Transfer-Encoding', 'chunked']],
      body: `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`,
    });
    expect(chunked.status).toBe(413);
    // Under the limit, and with the upload scope over 1 MiB: answered.
    const small = await rawRequest(port(), { method: 'POST', target: '/mcp', headers: mcpHeaders(readOnly), body: ping() });
    expect(small.status).toBe(200);
    const uploads = await rawRequest(port(), { method: 'POST', target: '/mcp', headers: mcpHeaders(server.tokens.manager), body: big });
    expect(uploads.status).toBe(200);
  });

  it('answers invalid JSON with a JSON-RPC parse error (-32700), and OPTIONS without a sign-in redirect', async () => {
    const res = await rawRequest(port(), {
      method: 'POST',
      target: '/mcp',
      headers: mcpHeaders(server.tokens.manager),
      body: '{"jsonrpc": ',
    });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('application/json');
    expect(JSON.parse(res.body.toString())).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: expect.any(String) }, id: null });
    const options = await server.request('/mcp', { method: 'OPTIONS', redirect: 'manual' });
    expect(options.status).toBe(204);
    expect(options.headers.get('location')).toBeNull();
    expect(options.headers.get('allow')).toBe('POST, OPTIONS');
  });
});

describe('v1', () => {
  it('a 401 names the protected resource metadata of v1, as /mcp does', async () => {
    for (const token of [undefined, 'plk_notatoken']) {
      const res = await server.call(`${V1}/auth/me.php`, token ? { token } : {});
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(
        new RegExp(`^Bearer resource_metadata="${server.url}/\\.well-known/oauth-protected-resource/api/external/v1", realm="punchlist"`),
      );
    }
  });

  it('sends nosniff on JSON, and X-Frame-Options on the documentation page', async () => {
    const me = await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager });
    expect(me.headers.get('x-content-type-options')).toBe('nosniff');
    const docs = await server.request(`${V1}/docs`, { redirect: 'follow' });
    expect(docs.status).toBe(200);
    expect(docs.headers.get('x-frame-options')).toBe('DENY');
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('declares the OAuth 2 scheme (authorization code, the metadata’s URLs, the scopes) beside the bearer one', async () => {
    const { body } = await server.call(`${V1}/openapi.json`);
    const metadata = (await server.call('/.well-known/oauth-authorization-server')).body;
    const flow = body.components.securitySchemes.oauth2.flows.authorizationCode;
    expect(flow.authorizationUrl).toBe(metadata.authorization_endpoint);
    expect(flow.tokenUrl).toBe(metadata.token_endpoint);
    expect(Object.keys(flow.scopes)).toEqual([...SCOPES]);
    expect(body.paths['/items/get.php'].get.security).toEqual([{ bearer: ['items:read'] }, { oauth2: ['items:read'] }]);
  });

  it('events/list refuses an `after` above 2^53 − 1 (422); 2^53 − 1 itself is fine', async () => {
    const list = (after: string) => server.call(`${V1}/events/list.php?after=${after}`, { token: server.tokens.manager });
    const over = await list('9007199254740992');
    expect(over.status).toBe(422);
    expect(over.body.error.details[0].field).toBe('after');
    expect((await list('9007199254740991')).status).toBe(200);
  });

  it('a CORS preflight allows If-None-Match (conditional GETs), not the unused If-Match', async () => {
    const res = await server.call(`${V1}/items/get.php`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://panel.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'if-none-match',
      },
    });
    expect(res.status).toBe(204);
    const allowed = res.headers.get('access-control-allow-headers')!.split(', ');
    expect(allowed).toContain('If-None-Match');
    expect(allowed).not.toContain('If-Match');
  });
});
