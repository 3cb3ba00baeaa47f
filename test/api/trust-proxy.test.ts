import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * TRUST_PROXY (probe finding): a hop count or the proxies' addresses, never "every hop". Behind one proxy that
 * appends the address it saw, a client-chosen leftmost X-Forwarded-For changes nothing: /metrics stays closed and
 * the per-address limits count the real address.
 */
const base = { DATABASE_URL: 'sqlite:/tmp/unused.db', STORAGE_URL: 'file:/tmp/unused', SESSION_SECRET: 's', DATA_DIR: '/tmp' };

describe('TRUST_PROXY values', () => {
  it('takes a hop count or a list of addresses and CIDRs; refuses "true" and anything else', () => {
    const trust = (value: string) => loadConfig({ ...base, TRUST_PROXY: value }).trustProxy;
    expect(trust('')).toBe(false);
    expect(trust('0')).toBe(false);
    expect(trust('1')).toBe(1);
    expect(trust('2')).toBe(2);
    expect(trust('10.0.0.0/8, 192.0.2.7,::1, fd00::/8')).toEqual(['10.0.0.0/8', '192.0.2.7', '::1', 'fd00::/8']);
    for (const bad of ['true', 'yes', 'all', '-1', '10.0.0.0/33', 'proxy.example', '10.0.0.1/8/2']) {
      expect(() => trust(bad), bad).toThrow(ConfigError);
    }
    expect(() => trust('true')).toThrow(/number of proxies in front/);
  });
});

describe.each([
  ['one hop', '1'],
  ['the proxy’s address', '127.0.0.1'],
])('behind one proxy (TRUST_PROXY: %s)', (_name, value) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: value, OAUTH_REGISTER_PER_MINUTE: '2' }, workspace: false });
  });
  afterAll(() => server.close());
  // What the proxy sends on: the client's X-Forwarded-For, then the address it saw the client come from.
  const forwarded = (claimed: string) => ({ 'x-forwarded-for': `${claimed}, 203.0.113.5` });

  it('a leftmost 127.0.0.1 does not open /metrics; a real loopback client still reads them', async () => {
    const spoofed = await server.request('/metrics', { headers: forwarded('127.0.0.1') });
    expect(spoofed.status).toBe(403);
    expect((await server.request('/metrics', { headers: { 'x-forwarded-for': '127.0.0.1' } })).status).toBe(200);
  });

  it('a new leftmost address per request does not rotate the per-address limit', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 3; i++) {
      const res = await server.call('/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...forwarded(`198.51.100.${i}`) },
        body: JSON.stringify({ client_name: `agent ${i}`, redirect_uris: ['http://127.0.0.1:49152/cb'] }),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([201, 201, 429]);
  });
});
