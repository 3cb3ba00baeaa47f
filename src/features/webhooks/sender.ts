import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { message, type MessageKey, type MessageValues } from '../../i18n/i18n.js';

/**
 * Sends webhook requests to the addresses their owners gave, without letting them reach this machine or its
 * network (SSRF): the host is resolved, every address is checked, and the request connects to the checked
 * address (no second lookup that DNS rebinding could answer differently). No redirect is followed; at most
 * 64 KiB of the answer is read; a receiver that does not answer in time is cut off.
 */
export class DestinationRefused extends Error {
  /** The reason as a message of reasons.json (the web says it in the page's language); `message` is its English. */
  constructor(
    readonly key: MessageKey,
    readonly values?: MessageValues,
  ) {
    super(message('en', key, values));
  }
}

/** IPv6 ranges that carry an IPv4 address in known bits: the address is as private as the IPv4 inside. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  const tail = () => ipaddr.fromByteArray(bytes.slice(12)) as ipaddr.IPv4;
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return tail();
    case 'rfc6052': // NAT64 64:ff9b::/96 (the local-use 64:ff9b:1::/48 has no fixed place: refused below)
      return address.toNormalizedString().startsWith('64:ff9b:0:0:0:0:') ? tail() : null;
    case '6to4': // 2002:aabb:ccdd::/48
      return ipaddr.fromByteArray(bytes.slice(2, 6)) as ipaddr.IPv4;
    case 'unicast': // the deprecated IPv4-compatible ::a.b.c.d (::/96) is in no named range
      return bytes.slice(0, 12).every((b) => b === 0) ? tail() : null;
    default:
      return null;
  }
}

/**
 * Loopback, private, link-local, shared, documentation, reserved, multicast or unspecified: whatever ipaddr.js
 * does not classify as plain `unicast`, IPv4 or IPv6. An IPv6 address embedding an IPv4 one (mapped, IPv4-
 * compatible, 6to4, NAT64) is judged by the IPv4 inside; NAT64's local-use prefix, Teredo, site-local and the
 * other special IPv6 ranges are refused. Anything that is not an address at all is refused too.
 */
export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 0) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return (parsed as ipaddr.IPv4).range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const inside = embeddedIPv4(v6);
  if (inside) return inside.range() !== 'unicast';
  return v6.range() !== 'unicast';
}

type Lookup = (host: string) => Promise<LookupAddress[]>;
const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

interface Destination {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** The address to send to, or DestinationRefused with a reason people can act on. */
export async function resolveDestination(raw: string, options: { allowPrivate: boolean; lookup?: Lookup }): Promise<Destination> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused('reason.url.invalid');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DestinationRefused('reason.url.scheme');
  if (url.username || url.password) throw new DestinationRefused('reason.url.credentials');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: LookupAddress[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await (options.lookup ?? systemLookup)(host);
  } catch {
    throw new DestinationRefused('reason.url.unresolved', { host });
  }
  if (addresses.length === 0) throw new DestinationRefused('reason.url.unresolved', { host });
  if (!options.allowPrivate) {
    const inside = addresses.find((a) => isPrivateAddress(a.address));
    if (inside) throw new DestinationRefused('reason.url.private', { address: inside.address });
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface Delivery {
  status: number | null;
  durationMs: number;
  /** Why there is no status (refused destination, connection error, time-out). */
  error: string | null;
  /** The start of the answer's body, for the delivery log. */
  body: string;
}

/** POSTs the body to the checked destination; never throws. */
export function send(destination: Destination, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Delivery> {
  const started = performance.now();
  const { url, address, family } = destination;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<Delivery, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'user-agent': 'Punchlist-Webhooks/1',
          'content-length': Buffer.byteLength(body),
        },
        // The connection goes to the address that was checked, whatever DNS says now.
        lookup: (_host, options, callback) => {
          if ((options as { all?: boolean }).all) (callback as (e: null, a: LookupAddress[]) => void)(null, [{ address, family }]);
          else (callback as (e: null, a: string, f: number) => void)(null, address, family);
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(chunk.subarray(0, MAX_RESPONSE_BYTES - size));
          size += chunk.length;
          if (size >= MAX_RESPONSE_BYTES) response.destroy();
        });
        const done = () =>
          finish({ status: response.statusCode ?? null, error: null, body: Buffer.concat(chunks).toString('utf8').slice(0, 2000) });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: null, error: `no answer within ${timeoutMs / 1000} s`, body: '' });
    }, timeoutMs);
    req.on('error', (err) => finish({ status: null, error: err.message, body: '' }));
    req.end(body);
  });
}
