import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { redactSecrets } from './domain/redact.js';

/**
 * What the HTTP server answers on its own, before a request reaches Fastify, in the API's envelope with
 * a fresh request id: headers over Node's limit (431), a request that does not arrive in time (408:
 * slowloris and slow bodies, docs/operations.md "Timeouts"), malformed HTTP (400), an `Expect` other
 * than 100-continue (417). None of them is audited: no request existed.
 */

const SOCKET_ERRORS: Record<string, [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'headers_too_large', 'The request line and headers exceed 16 KiB'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request_timeout', 'The request did not arrive in time'],
};
const MALFORMED: [number, string, string, string] = [400, 'Bad Request', 'bad_request', 'The request is not well-formed HTTP/1.1'];
const NON_ASCII_TARGET: [number, string, string, string] = [
  400,
  'Bad Request',
  'bad_request',
  'The URL contains raw non-ASCII characters: percent-encode them (UTF-8), e.g. "ä" as %C3%A4 (encodeURIComponent does it)',
];

/** True when the request line (the first line the client sent) holds a byte outside ASCII. */
function requestLineHasNonAscii(rawPacket: unknown): boolean {
  if (!Buffer.isBuffer(rawPacket)) return false;
  const end = rawPacket.indexOf('\r\n');
  const line = end < 0 ? rawPacket : rawPacket.subarray(0, end);
  return line.some((byte) => byte > 0x7f);
}

function envelope(code: string, message: string) {
  const requestId = randomUUID();
  const body = JSON.stringify({
    ok: false,
    error: { code, message },
    meta: { request_id: requestId, api_version: 'v1', timestamp: new Date().toISOString() },
  });
  return { requestId, body };
}

function socketErrorResponse(code: string | undefined, rawPacket?: unknown): string {
  const [status, reason, errorCode, message] =
    (code && SOCKET_ERRORS[code]) || (requestLineHasNonAscii(rawPacket) ? NON_ASCII_TARGET : MALFORMED);
  const { requestId, body } = envelope(errorCode, message);
  return (
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nX-Request-Id: ${requestId}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Fastify's clientErrorHandler: the envelope on the socket, then the connection closed. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
  socket.end(socketErrorResponse(err.code, (err as { rawPacket?: unknown }).rawPacket));
  // A client that stops reading must not keep the socket open after the answer.
  socket.setTimeout(5000, () => socket.destroy());
}

/** The server's 'checkExpectation' listener: Node's own 417 has no body. */
export function expectationFailed(_request: IncomingMessage, response: ServerResponse) {
  const { requestId, body } = envelope('expectation_failed', 'Only "Expect: 100-continue" is supported');
  response.writeHead(417, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    connection: 'close',
  });
  response.end(body);
}

/**
 * Log paths that hold credentials. Besides Fastify's request, plugins log headers of their own:
 * @fastify/multipart logs `busboyOptions.headers` (Authorization and Cookie included) at trace level.
 */
export const LOG_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["x-api-key"]',
];

/** Fastify's request serializer for the log, with secrets a client put in the URL removed. */
export function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactSecrets(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
