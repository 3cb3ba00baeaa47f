import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/shared/config.js';
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
    expect(trust('10.0.0.0/9, 192.0.2.7,::1, fd00::/48')).toEqual(['10.0.0.0/9', '192.0.2.7', '::1', 'fd00::/48']);
    for (const bad of ['true', 'yes', 'all', '-1', '10.0.0.0/33', 'proxy.example', '10.0.0.1/8/2']) {
      expect(() => trust(bad), bad).toThrow(ConfigError);
    }
    expect(() => trust('true')).toThrow(/number of proxies in front/);
  });

  it('refuses a list whose ranges together are wider than a /8 of IPv4 or a /32 of IPv6 (issue 46)', () => {
    const trust = (value: string) => loadConfig({ ...base, TRUST_PROXY: value }).trustProxy;
    // As wide as allowed, alone or made of pieces (overlaps counted once).
    expect(trust('10.0.0.0/8')).toEqual(['10.0.0.0/8']);
    expect(trust('10.0.0.0/9,10.128.0.0/9,10.1.2.3,10.0.0.0/16')).toHaveLength(4);
    expect(trust('2001:db8::/32,2001:db8:1::/48')).toHaveLength(2);
    expect(trust('10.0.0.0/8,2001:db8::/32')).toHaveLength(2);
    const wide = [
      '0.0.0.0/1,128.0.0.0/1', // everyone, the probe's finding
      '0.0.0.0/0',
      '10.0.0.0/7',
      '10.0.0.0/8,192.168.0.1', // one address past a /8
      '10.0.0.0/8,172.16.0.0/12',
      '::/0',
      '2001:db8::/31',
      '2001:db8::/32,2001:db9::/48',
      '10.0.0.0/8,2001:db8::/32,::1',
      '::ffff:0:0/96', // every IPv4 client, as a dual-stack socket sees it
      '::/32', // a /32 of IPv6, but it holds ::ffff:0:0/96
      '::ffff:10.0.0.0/104,11.0.0.0/32',
    ];
    for (const value of wide) expect(() => trust(value), value).toThrow(ConfigError);
    expect(() => trust('0.0.0.0/1,128.0.0.0/1')).toThrow(
      /^TRUST_PROXY trusts 4294967296 IPv4 addresses together, more than a \/8 \(16777216\): .*list only your proxies' addresses/,
    );
    expect(() => trust('2000::/3')).toThrow(/IPv6 addresses together, more than a \/32/);
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
