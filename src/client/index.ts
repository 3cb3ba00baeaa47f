import type { Static } from 'typebox';
import type { Operation, OperationRegistry } from '../api/v1/define-operation.js';
import type { ArgsOf, RequestOf } from './arguments.js';
import { OPERATIONS } from '../api/v1/operations.js';
import { createTransport, type Request, type TransportOptions } from './transport.js';
import type { CallOptions, ImageFile, WriteOptions } from './types.js';

/**
 * The typed client of the Punchlist external API v1: one method per operation, named like it, each
 * resolving to the envelope's `data` and rejecting with a PunchlistApiError. Writes carry an automatic
 * Idempotency-Key. The methods are derived from the operation definitions (src/api/v1/operations/): their
 * `client` block names the input properties taken as positional arguments and whether the others follow as
 * one object; the argument types are those of the operation's schemas. `call(id, input)` reaches any
 * operation with the request as v1 names it.
 *
 *   const punchlist = createPunchlistClient({ baseUrl: 'http://127.0.0.1:8080', token: process.env.PUNCHLIST_TOKEN! });
 *   const me = await punchlist.me();
 *   const { item } = await punchlist.call('getItem', { query: { id: 1000 } });
 */
export type PunchlistClientOptions = TransportOptions;

export { PunchlistApiError, type FieldError } from './errors.js';
export type * from './types.js';
export { OPERATIONS, type OperationId } from '../api/v1/operations.js';

type OptionsOf<Op extends Operation> = Op['method'] extends 'GET' ? CallOptions : WriteOptions;

/** The client's methods: for each operation, its positional arguments, its object argument if any, then the call options. */
export type ClientMethods<R extends OperationRegistry> = {
  [Id in keyof R]: (...args: [...ArgsOf<R[Id]>, options?: OptionsOf<R[Id]>]) => Promise<Static<R[Id]['data']>>;
};

export interface ClientCall<R extends OperationRegistry> {
  /** Any operation, with its request as v1 names it (query parameters, or body / form fields and files). */
  call<Id extends keyof R & string>(id: Id, input: RequestOf<R[Id]>, options?: OptionsOf<R[Id]>): Promise<Static<R[Id]['data']>>;
}

function toBlob(file: ImageFile): Blob {
  if (file.bytes instanceof Blob) return file.bytes;
  const type = file.type ?? 'application/octet-stream';
  // A copy: a Node Buffer may sit on a shared pool that Blob does not accept as is.
  return new Blob([file.bytes instanceof ArrayBuffer ? file.bytes : new Uint8Array(file.bytes)], { type });
}

/** The form fields (as text), then the files as repeated `attachments[]` parts. */
function uploadForm(fields: Record<string, unknown>, files: ImageFile[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, String(value));
  for (const file of files) form.append('attachments[]', toBlob(file), file.name);
  return form;
}

/** The transport request of a call: the input encoded as the operation's body kind says. */
function encode(op: Operation, input: { query?: Record<string, unknown>; fields?: Record<string, unknown>; files?: ImageFile[] }): Request {
  if (op.body === 'json') return { json: input.fields };
  if (op.body === 'multipart') return { form: uploadForm(input.fields ?? {}, input.files ?? []) };
  return { query: input.query as Request['query'] };
}

/** A method's arguments as the operation's request, and the call options after them. */
function requestOf(op: Operation, args: unknown[]) {
  const { positional, rest } = op.client;
  const input: Record<string, unknown> = {};
  if (rest !== undefined) Object.assign(input, args[positional.length]);
  positional.forEach((name, i) => (input[name] = args[i]));
  const options = args[positional.length + (rest === undefined ? 0 : 1)] as WriteOptions | undefined;
  if (op.body === 'none') return { input: { query: input }, options };
  if (op.body === 'json') return { input: { fields: input }, options };
  const { files, ...fields } = input;
  return { input: { fields, files: files as ImageFile[] }, options };
}

/** A client of the v1 operations, or (`operations`, for tests) of another list of definitions. */
export function createPunchlistClient(options: PunchlistClientOptions): PunchlistClient;
export function createPunchlistClient<R extends OperationRegistry>(options: PunchlistClientOptions & { operations: R }): ClientOf<R>;
export function createPunchlistClient(options: PunchlistClientOptions & { operations?: OperationRegistry }): unknown {
  const operations: OperationRegistry = options.operations ?? OPERATIONS;
  const transport = createTransport(options);
  const call = async (id: string, input: object, callOptions: WriteOptions = {}) => {
    const op = operations[id];
    if (!op) throw new TypeError(`Unknown operation ${id}`);
    const request = encode(op, input);
    return transport(op, { ...request, idempotencyKey: callOptions.idempotencyKey, signal: callOptions.signal });
  };
  const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [id, op] of Object.entries(operations)) {
    methods[id] = (...args) => {
      const { input, options: callOptions } = requestOf(op, args);
      return call(id, input, callOptions);
    };
  }
  return { ...methods, call };
}

export type ClientOf<R extends OperationRegistry> = ClientMethods<R> & ClientCall<R>;
export type PunchlistClient = ClientOf<typeof OPERATIONS>;
