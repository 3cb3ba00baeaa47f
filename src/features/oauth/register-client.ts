import { SCOPES } from '../../domain/scopes.js';
import { nameProblem } from '../../domain/inputs.js';
import {
  hasControlCharacter,
  MAX_REDIRECT_URIS,
  MAX_URI_LENGTH,
  OAuthError,
  parseScopeString,
  randomSecret,
  redirectUriProblem,
} from './oauth-protocol.js';
import type { OAuthDeps } from './oauth-grants.js';

const MAX_CLIENT_NAME = 100;
const DEFAULT_CLIENT_NAME = 'Unnamed application';

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  scope?: string;
  client_uri?: string;
  software_id?: string;
  software_version?: string;
}

const clientMetadata = (description: string) => new OAuthError('invalid_client_metadata', description);

function optionalString(body: Record<string, unknown>, field: string, max: number): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max || hasControlCharacter(value)) {
    throw clientMetadata(`${field} must be a string of at most ${max} characters without control characters`);
  }
  return value;
}

function stringList(body: Record<string, unknown>, field: string, fallback: string[], allowed: readonly string[]): string[] {
  const value = body[field];
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string'))
    throw clientMetadata(`${field} must be an array of strings`);
  const unknown = value.filter((v) => !allowed.includes(v));
  if (unknown.length) throw clientMetadata(`${field}: ${unknown.join(', ')} not supported (supported: ${allowed.join(', ')})`);
  return [...new Set(value)];
}

/** The redirect URIs of the metadata: a non-empty list of https or loopback URIs. */
function redirectUris(fields: Record<string, unknown>): string[] {
  const uris = fields.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u): u is string => typeof u === 'string')) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URIs');
  }
  if (uris.length > MAX_REDIRECT_URIS) throw new OAuthError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} redirect_uris`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uri ${JSON.stringify(uri.slice(0, 200))} ${problem}`);
  }
  return [...new Set(uris)];
}

/** The client's metadata, checked (RFC 7591 §2). */
function clientFields(body: unknown) {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw clientMetadata('the body must be a JSON object of client metadata');
  const fields = body as Record<string, unknown>;
  const uris = redirectUris(fields);
  const grantTypes = stringList(fields, 'grant_types', ['authorization_code', 'refresh_token'], ['authorization_code', 'refresh_token']);
  if (!grantTypes.includes('authorization_code')) throw clientMetadata('grant_types must include authorization_code');
  const responseTypes = stringList(fields, 'response_types', ['code'], ['code']);
  const name = optionalString(fields, 'client_name', MAX_CLIENT_NAME)?.trim() || DEFAULT_CLIENT_NAME;
  // The consent page and the Profile show it as the application's name: the rule of every name.
  const nameRefused = nameProblem(name);
  if (nameRefused) throw clientMetadata(`client_name ${nameRefused}`);
  const clientUri = optionalString(fields, 'client_uri', MAX_URI_LENGTH);
  if (clientUri !== null && !/^https?:\/\/[^\s]+$/i.test(clientUri)) throw clientMetadata('client_uri must be an http(s) URL');
  const scope = optionalString(fields, 'scope', 1000);
  if (scope !== null) {
    const { unknown } = parseScopeString(scope);
    if (unknown.length) throw clientMetadata(`scope: unknown ${unknown.join(', ')} (supported: ${SCOPES.join(' ')})`);
  }
  const softwareId = optionalString(fields, 'software_id', 200);
  const softwareVersion = optionalString(fields, 'software_version', 200);
  return { uris, grantTypes, responseTypes, name, clientUri, scope: scope?.trim() || null, softwareId, softwareVersion };
}

/** RFC 7591: a public client (no secret), with https or loopback redirect URIs. */
export async function registerClient({ repo, clock }: OAuthDeps, body: unknown): Promise<RegisteredClient> {
  const { uris, grantTypes, responseTypes, name, clientUri, scope, softwareId, softwareVersion } = clientFields(body);
  const now = clock.now();
  const clientId = randomSecret('plc_');
  await repo.insertClient({
    id: clientId,
    client_name: name,
    redirect_uris: JSON.stringify(uris),
    scope,
    client_uri: clientUri,
    software_id: softwareId,
    software_version: softwareVersion,
    created_at: now.toISOString(),
  });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: name,
    redirect_uris: uris,
    grant_types: grantTypes,
    response_types: responseTypes,
    // Public clients only: a client asking for a secret method is registered as public (RFC 7591 §3.2.1 lets the server replace values).
    token_endpoint_auth_method: 'none',
    ...(scope ? { scope } : {}),
    ...(clientUri ? { client_uri: clientUri } : {}),
    ...(softwareId ? { software_id: softwareId } : {}),
    ...(softwareVersion ? { software_version: softwareVersion } : {}),
  };
}
