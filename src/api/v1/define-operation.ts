import type { Readable } from 'node:stream';
import type { Static, TObject, TSchema } from 'typebox';
import type { AppContext } from '../../composition/context.js';
import type { Scope } from '../../domain/scopes.js';
import type { ErrorCode } from '../../shared/errors.js';
import type { IntegerText } from './schemas.js';
import type { IncomingImage } from '../../features/items/index.js';
import type { AuditEntryBuilder } from '../../features/write-path/write-path.js';
import type { Principal } from '../../features/tokens/tokens.service.js';

/**
 * The shape of one v1 operation's definition (src/api/v1/operations/<operation>.ts): everything the
 * Fastify route (operation-route.ts), the OpenAPI document (openapi.ts), the typed client (src/client/)
 * and the MCP tool (src/mcp/server.ts) are derived from, the handler included. The client imports the
 * definitions, so a definition file imports server modules with `import type` only: its handler gets
 * the services it needs as an argument, passed when the routes are registered.
 */

export const V1_BASE_PATH = '/api/external/v1';

type OperationMethod = 'GET' | 'POST' | 'PATCH' | 'PUT';
export type OperationBody = 'none' | 'json' | 'multipart';
export type OperationTag = 'auth' | 'projects' | 'items' | 'comments' | 'answers' | 'events' | 'plans';

/** MCP tool annotations (docs/design.md §9); openWorldHint is always false (the tools reach only Punchlist). */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
}

/**
 * What the handler of a file operation (`file` set) returns: the file, streamed as the response body
 * instead of an envelope.
 */
export interface FileResponse {
  filename: string;
  /** One of the operation's `file.mediaTypes`, with its parameters (`text/csv; charset=utf-8`). */
  contentType: string;
  stream: Readable;
}

/** The services a handler may use: handed over explicitly when the routes are registered (v1-plugin.ts). */
export type ApiServices = Pick<
  AppContext,
  | 'projects'
  | 'items'
  | 'itemWrites'
  | 'attachments'
  | 'comments'
  | 'answers'
  | 'events'
  | 'reports'
  | 'cacheVersions'
  | 'offloadedReads'
  | 'plans'
>;

/** What a handler receives: the principal's user and token, the validated input, and the audit builder of a write. */
export interface HandlerInput<Q, F> {
  user: Principal['user'];
  token: Principal['token'];
  query: Q;
  /** The JSON body, or the text fields of a multipart form. */
  fields: F;
  /** The files of a multipart form (empty otherwise). */
  files: IncomingImage[];
  /** For writes: the service calls it inside its transaction, so the write and its audit record commit together. */
  audit: AuditEntryBuilder;
}

/** An image to upload: its file name and bytes (PNG, JPEG, GIF or WebP; the server reads the format from the bytes). */
export interface ImageFile {
  name: string;
  bytes: Uint8Array | ArrayBuffer | Blob;
  /** Declared MIME type; default application/octet-stream. */
  type?: string;
}

/**
 * Query parameters and form fields travel as text: a caller gives an integer where the schema takes one as
 * decimal text (IntegerText: ids, limits), a boolean where it takes `true` / `false`, text elsewhere (or a
 * number); the transport sends their text.
 */
type LooseValue<S, V> = S extends IntegerText
  ? Exclude<V, string> | number
  : string extends V
    ? V | number
    : 'true' extends V
      ? V | boolean
      : V;
type Loose<O extends TObject> = {
  [K in keyof Static<O>]: K extends keyof O['properties'] ? LooseValue<O['properties'][K], Static<O>[K]> : Static<O>[K];
};

/** What a call of the operation sends, before the transport encodes it (query string, JSON body or multipart form). */
export type CallInput<Q extends TObject, F extends TObject, B extends OperationBody> = B extends 'none'
  ? { query?: Loose<Q> }
  : B extends 'json'
    ? { fields: Static<F> }
    : { fields: Loose<F>; files: ImageFile[] };

/**
 * The operation's input as one object, as the typed client's methods and the MCP tool take it: the query
 * parameters of a read, the body fields of a JSON write, the form fields and `files` of an upload.
 */
export type InputOf<Q extends TObject, F extends TObject, B extends OperationBody> = B extends 'none'
  ? Loose<Q>
  : B extends 'json'
    ? Static<F>
    : Loose<F> & { files: ImageFile[] };

/**
 * The typed client's method of an operation: which input properties it takes as positional arguments
 * (ids first), and whether the others follow as one object argument; then the call options. Explicit, so
 * the client never guesses the arity.
 */
interface ClientArguments<Name extends string = string> {
  readonly positional: readonly Name[];
  /** The name the documentation gives the last object argument (`changes`, `query`); absent: no such argument. */
  readonly rest?: string;
}

/**
 * An MCP tool argument that differs from the operation's input: its name, and a description written for
 * the agent (which ids to pass).
 */
export interface ToolArgument {
  name: string;
  description?: string;
}

/**
 * The errors an operation can answer (ErrorCode, with its status in errors.ts): those every request can get
 * (the transport, the token, the rate limit, the scope, the server), those of every write (the idempotency
 * key, the body), and its own (the input, existence, the user's right). openapi.ts writes the responses.
 */
const EVERY_REQUEST: readonly ErrorCode[] = [
  'bad_request',
  'unauthorized',
  'token_invalid',
  'token_revoked',
  'token_expired',
  'scope_missing',
  'method_not_allowed',
  'request_timeout',
  'expectation_failed',
  'rate_limited',
  'headers_too_large',
  'internal_error',
  'service_unavailable',
];

/** The errors of a read: every request's, and its own. */
export const readErrors = (...own: ErrorCode[]): readonly ErrorCode[] => [...EVERY_REQUEST, ...own];
/** The errors of a JSON write: every request's, the idempotency key's, the body's (type and size), and its own. */
export const jsonWriteErrors = (...own: ErrorCode[]): readonly ErrorCode[] => [
  ...EVERY_REQUEST,
  'idempotency_conflict',
  'payload_too_large',
  'unsupported_media_type',
  ...own,
];
/** The errors of an upload: every request's, the idempotency key's, the body type's, and its own (file limits answer 422). */
export const uploadErrors = (...own: ErrorCode[]): readonly ErrorCode[] => [
  ...EVERY_REQUEST,
  'idempotency_conflict',
  'unsupported_media_type',
  ...own,
];

/** One request of the operation, as the OpenAPI example shows it and the tests send it. */
interface ExampleRequest {
  /** Query parameters, by name (as text). */
  query?: Record<string, string>;
  /** The JSON body (JSON writes). */
  body?: Record<string, unknown>;
  /** The text fields of a multipart form (uploads); the tests add one image as `attachments[]`. */
  form?: Record<string, string>;
}

interface OperationExamples extends ExampleRequest {
  /** Example `data` of the success envelope (test/openapi.test.ts validates it against `data`). */
  data: unknown;
  /**
   * The request the tests send (scope matrix, BOLA, secrets, the OpenAPI response check) when the
   * documented one cannot run against the test workspace as is. Default: the documented request above.
   * The documented ids are those of the test workspace (project 1, item 1000, answer 7000).
   */
  sample?: ExampleRequest;
}

export interface OperationDefinition<
  Q extends TObject = TObject,
  F extends TObject = TObject,
  D extends TSchema = TSchema,
  M extends OperationMethod = OperationMethod,
  B extends OperationBody = OperationBody,
  C extends ClientArguments = ClientArguments,
> {
  method: M;
  /** Relative to V1_BASE_PATH. */
  path: string;
  scope: Scope;
  tag: OperationTag;
  body: B;
  /** The success status: 201 for creating writes, 200 otherwise. */
  status: 200 | 201;
  summary: string;
  /** Markdown of the OpenAPI operation, after the summary (the scope and the ETag / Idempotency-Key notes are added). */
  description: string;
  /** Query parameters (GET); unknown ones are refused with 422. */
  query?: Q;
  /** JSON body fields (json), or the text fields of a multipart form (multipart); unknown ones → 422. */
  fields?: F;
  /**
   * The envelope's `data` on success; the response schema strips what it does not declare. For a file
   * operation: the file as the typed client hands it over (and the MCP tool's structured result).
   */
  data: D;
  /**
   * Set when a success is a file streamed as is, not an envelope (errors stay in the envelope, the call
   * is audited like any read): the handler returns a FileResponse; the OpenAPI document lists these
   * media types; the typed client resolves to the file as `data` describes it.
   */
  file?: { mediaTypes: readonly string[] };
  /** The entity the audit record names: its type and the query, body or form field holding its id. */
  audit?: { entity: 'item' | 'project' | 'answer'; field: string };
  /** Every error code the operation can answer (readErrors, jsonWriteErrors, uploadErrors): its OpenAPI responses. */
  errors: readonly ErrorCode[];
  examples: OperationExamples;
  /**
   * Answers the operation's `data` for a validated request: about one service call. Typed `unknown`
   * because the services still type enumerations as plain strings; the response schema serializes it
   * and test/openapi.test.ts checks real responses against it.
   */
  handler(input: HandlerInput<Static<Q>, Static<F>>, services: ApiServices): Promise<unknown>;
  /**
   * A read whose answer may be served from the response cache (features/caches/): `version` reads, before
   * the handler runs, the version of everything the answer is built from (null: do not cache). The cache
   * key adds the request's query and who asks (user, role, token's project limit), so an answer, and the
   * access decision in it, is only ever served to the same kind of caller.
   */
  cache?: { version(input: { query: Static<Q> }, services: ApiServices): Promise<string | null> };
  /** The typed client's method of the same name as the operation: see ClientArguments. */
  client: C;
  /**
   * The MCP tool behind this operation, if any (docs/design.md §9 names them): a call runs the operation through
   * the client. Its input schema is the operation's query or fields (and `images`, base64, for an upload),
   * renamed where the tool's argument names differ; arguments go to v1 as given, which validates them.
   */
  mcp?: {
    tool: string;
    title: string;
    hints: ToolHints;
    description: string;
    /** Input properties whose tool argument differs (`id` → `item_id`), by input name. */
    rename?: Record<string, ToolArgument>;
    /** Input properties the tool always sends as given here, and does not take. */
    fixed?: Record<string, unknown>;
    /** The tool result's text (default: `data` as JSON), e.g. a downloaded file's own text. */
    text?(data: Static<D>): string;
  };
}

/** Any operation definition, as the registry and the code that walks it see it. */
export type Operation = OperationDefinition;

/** A list of definitions keyed by operation id (the OpenAPI operationId and the client's method name). */
export type OperationRegistry = Record<string, Operation>;

/** The schema of an absent query or body. */
type NoProperties = TObject<Record<never, TSchema>>;

/** What defineOperation checks beyond the shape: the client's and the tool's names are input properties. */
interface NamesOfInput<In> {
  client: ClientArguments<keyof In & string>;
  mcp?: { rename?: Partial<Record<keyof In & string, ToolArgument>>; fixed?: Partial<In> };
}

/**
 * Declares an operation: the schemas give the handler's, the client's and the MCP tool's argument
 * types. Returns the definition as given.
 */
export function defineOperation<
  M extends OperationMethod,
  B extends OperationBody,
  D extends TSchema,
  const C extends ClientArguments,
  Q extends TObject = NoProperties,
  F extends TObject = NoProperties,
>(definition: OperationDefinition<Q, F, D, M, B, C> & NamesOfInput<InputOf<Q, F, B>>): OperationDefinition<Q, F, D, M, B, C> {
  return definition;
}

/** The envelope's `data` of an operation of a registry. */

/** The operation registered at `METHOD path` (path relative to the v1 base), if any. */
export function operationAt(operations: OperationRegistry, method: string, path: string): string | undefined {
  return Object.keys(operations).find((id) => operations[id]!.method === method && operations[id]!.path === path);
}
