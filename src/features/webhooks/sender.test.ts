import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DestinationRefused, isPrivateAddress, MAX_RESPONSE_BYTES, resolveDestination, send } from './sender.js';

/** A real receiver on loopback: records what it got, answers per path. */
let receiver: Server;
let base: string;
const received: { path: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/gone') return res.writeHead(410).end();
      if (req.url === '/redirect') return res.writeHead(302, { location: '/ok' }).end();
      if (req.url === '/big') return res.writeHead(200).end('x'.repeat(MAX_RESPONSE_BYTES * 4));
      if (req.url === '/hang') return; // never answers
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => {
  receiver.closeAllConnections();
  receiver.close();
});

describe('webhook destinations', () => {
  it('tell private addresses from public ones, IPv4-mapped IPv6 included', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      'not an ip',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('IPv6 forms that embed an IPv4 address are judged by it; special IPv6 ranges are refused (probe finding)', () => {
    const embedding = [
      '::127.0.0.1', // IPv4-compatible
      '::7f00:1',
      '::ffff:0:7f00:1', // RFC 6145 translated
      '::ffff:0:10.0.0.1',
      '2002:7f00:1::1', // 6to4 of 127.0.0.1
      '2002:c0a8:101::1', // 6to4 of 192.168.1.1
      '64:ff9b::127.0.0.1', // NAT64
      '64:ff9b::a00:1',
      '64:ff9b:1::8.8.8.8', // NAT64 local use: refused whatever it holds
      'fec0::1', // site-local
      '2001::1', // Teredo
      '2001:db8::1',
      '100::1',
      'ff02::1',
    ];
    for (const a of embedding) expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['2002:808:808::1', '64:ff9b::8.8.8.8', '::8.8.8.8', '2a00:1450:4001::1']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses the URL forms of such addresses', async () => {
    for (const url of [
      'http://[::127.0.0.1]/h',
      'http://[::ffff:0:7f00:1]/h',
      'http://[2002:7f00:1::1]/h',
      'http://[64:ff9b::7f00:1]/h',
      'http://[fec0::1]/h',
    ]) {
      await expect(resolveDestination(url, { allowPrivate: false }), url).rejects.toBeInstanceOf(DestinationRefused);
    }
  });

  it('are refused when the host is or resolves to such an address, unless private ones are allowed', async () => {
    const rebinding = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const refused = async (url: string, lookup = rebinding) => {
      const error = await resolveDestination(url, { allowPrivate: false, lookup }).catch((e: unknown) => e);
      expect(error, url).toBeInstanceOf(DestinationRefused);
      return (error as Error).message;
    };
    expect(await refused('http://127.0.0.1:9/hook')).toContain('127.0.0.1');
    expect(await refused('http://[::1]/hook')).toContain('::1');
    expect(await refused('https://hooks.example.test/in')).toContain('resolves to 127.0.0.1');
    expect(await refused('ftp://hooks.example.test/')).toContain('http or https');
    expect(await refused('https://user:pw@hooks.example.test/')).toContain('user name or password');
    expect(await refused('https://nowhere.invalid/', async () => Promise.reject(new Error('ENOTFOUND')))).toContain(
      'could not be resolved',
    );
    const allowed = await resolveDestination('http://localhost:9/x', {
      allowPrivate: true,
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(allowed.address).toBe('127.0.0.1');
  });
});

describe('sending', () => {
  const destination = (path: string) => resolveDestination(base + path, { allowPrivate: true });

  it('posts the body with the headers to the checked address, even when DNS would now answer otherwise', async () => {
    // The URL names a host that does not exist; the connection goes to the address resolved when checked.
    const checked = await resolveDestination(base.replace('127.0.0.1', 'receiver.invalid') + '/ok', {
      allowPrivate: true,
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const result = await send(checked, { 'webhook-id': 'msg_1' }, '{"id":1}', 5000);
    expect(result).toMatchObject({ status: 204, error: null });
    expect(received.at(-1)).toMatchObject({
      path: '/ok',
      body: '{"id":1}',
      headers: { 'webhook-id': 'msg_1', 'content-type': 'application/json' },
    });
  });

  it('follows no redirect, reads at most 64 KiB, reports 410, and cuts off a receiver that hangs', async () => {
    expect(await send(await destination('/redirect'), {}, '{}', 5000)).toMatchObject({ status: 302 });
    expect(received.filter((r) => r.path === '/ok')).toHaveLength(1);
    const big = await send(await destination('/big'), {}, '{}', 5000);
    expect(big.status).toBe(200);
    expect(big.body.length).toBeLessThanOrEqual(2000);
    expect(await send(await destination('/gone'), {}, '{}', 5000)).toMatchObject({ status: 410 });
    const hang = await send(await destination('/hang'), {}, '{}', 300);
    expect(hang).toMatchObject({ status: null, error: 'no answer within 0.3 s' });
    expect(await send(await resolveDestination('http://127.0.0.1:9/closed', { allowPrivate: true }), {}, '{}', 2000)).toMatchObject({
      status: null,
    });
  });
});
