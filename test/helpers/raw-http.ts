import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 exchange on a fresh connection, byte for byte as given: for requests fetch() refuses to send. */
export interface RawRequest {
  method: string;
  /** The request target as written on the request line (path and query, not re-encoded). */
  target: string;
  /** Header lines in order; names and values are written as given (latin1). */
  headers?: [string, string][];
  body?: Buffer | string;
  /** Content-Length is added for a body unless a header of that name (or Transfer-Encoding) is given. */
  contentLength?: boolean;
  /** Give up after this long (the exchange then resolves with status 0). */
  timeoutMs?: number;
  /** Written instead of `METHOD target HTTP/1.1` (malformed request lines). */
  requestLine?: string;
}

export interface RawResponse {
  /** 0 when the server closed the connection without answering (or the timeout hit). */
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Milliseconds from connect to close. */
  elapsedMs: number;
}

export function encodeRequest(request: RawRequest): Buffer {
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const headers = [...(request.headers ?? [])];
  const has = (name: string) => headers.some(([n]) => n.toLowerCase() === name);
  if (!has('host')) headers.unshift(['Host', '127.0.0.1']);
  if (!has('connection')) headers.push(['Connection', 'close']);
  if (body && request.contentLength !== false && !has('content-length') && !has('transfer-encoding')) {
    headers.push(['Content-Length', String(body.length)]);
  }
  const head = `${request.requestLine ?? `${request.method} ${request.target} HTTP/1.1`}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}

/** Splits a response; decodes a chunked body. HEAD and 1xx/204/304 answers have no body. */
export function parseResponse(bytes: Buffer, method: string): Omit<RawResponse, 'elapsedMs'> {
  // Interim answers (100 Continue) come before the response proper.
  while (/^HTTP\/1\.[01] 1\d\d /.test(bytes.subarray(0, 13).toString('latin1')) && bytes.indexOf('\r\n\r\n') >= 0) {
    bytes = bytes.subarray(bytes.indexOf('\r\n\r\n') + 4);
  }
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: Buffer.alloc(0) };
  const lines = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(end + 4);
  if (method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200)) body = Buffer.alloc(0);
  else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, body };
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** Sends the request, reads until the server closes the connection. */
export function rawRequest(port: number, request: RawRequest): Promise<RawResponse> {
  const started = performance.now();
  const payload = encodeRequest(request);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    // Written without half-closing: Node's server drops a request whose client sent FIN before the answer.
    const socket: Socket = connect(port, '127.0.0.1', () => {
      socket.write(payload);
    });
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseResponse(Buffer.concat(chunks), request.method), elapsedMs: performance.now() - started });
    };
    const timer = setTimeout(finish, request.timeoutMs ?? 30_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', finish);
    socket.on('close', finish);
  });
}
