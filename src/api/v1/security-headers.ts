import type { FastifyInstance } from 'fastify';
import { protectedResourceMetadataUrl } from '../../oauth/metadata.js';

/**
 * Headers every v1 response carries (docs/integrators.md, "Headers"): `X-Content-Type-Options: nosniff` (JSON
 * is never sniffed into HTML); on the documentation pages `X-Frame-Options: DENY` too (nobody frames them); and a
 * 401's challenge names the protected resource metadata of v1 (RFC 9728), as /mcp's does, so a generic OAuth
 * client finds the authorization server from either.
 */
export function securityHeaders(app: FastifyInstance, baseUrl: string, prefix: string) {
  const metadata = `resource_metadata="${protectedResourceMetadataUrl(baseUrl, prefix)}"`;
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    if (request.url.startsWith(`${prefix}/docs`)) reply.header('x-frame-options', 'DENY');
    const challenge = reply.getHeader('www-authenticate');
    if (reply.statusCode === 401 && typeof challenge === 'string' && !challenge.includes('resource_metadata=')) {
      reply.header('www-authenticate', `Bearer ${metadata}, ${challenge.replace(/^Bearer\s+/i, '')}`);
    }
    return payload;
  });
}
