import { SCOPES } from '../domain/scopes.js';

/** The resources this server protects, by the path suffix of their RFC 9728 metadata URL. */
export const PROTECTED_RESOURCES = {
  '': 'Punchlist',
  '/mcp': 'Punchlist MCP server',
  '/api/external/v1': 'Punchlist external API v1',
} as const;

export const protectedResourceMetadataUrl = (baseUrl: string, suffix = '') => `${baseUrl}/.well-known/oauth-protected-resource${suffix}`;

/** RFC 8414 authorization server metadata: the issuer is BASE_URL. */
export function authorizationServerMetadata(baseUrl: string) {
  return {
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}/oauth/authorize`,
    token_endpoint: `${baseUrl}/oauth/token`,
    registration_endpoint: `${baseUrl}/oauth/register`,
    revocation_endpoint: `${baseUrl}/oauth/revoke`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${baseUrl}/api/external/v1/docs`,
  };
}

/** RFC 9728 protected resource metadata; `resource` is the identifier the metadata URL was built from. */
export function protectedResourceMetadata(baseUrl: string, suffix: keyof typeof PROTECTED_RESOURCES) {
  return {
    resource: baseUrl + suffix,
    resource_name: PROTECTED_RESOURCES[suffix],
    authorization_servers: [baseUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_documentation: `${baseUrl}/api/external/v1/docs`,
  };
}
