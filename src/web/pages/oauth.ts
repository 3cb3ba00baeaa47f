import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock.js';
import { ApiError } from '../../shared/errors.js';
import { OAuthError } from '../../features/oauth/oauth-protocol.js';
import { type AuthorizationRequest, AuthorizationError, type OAuthService } from '../../features/oauth/oauth.service.js';
import { Type } from 'typebox';
import { Text } from '../../http/write-inputs.js';
import { formOf, parseFields, sentField } from '../form.js';
import { SignInRequired, sessionOf } from '../session.js';
import { languageOf } from '../layout.js';
import type { ProjectsService } from '../../features/projects/projects.service.js';
import { expiryFrom, grantOf, projectLimitOf } from '../token-expiry.js';
import { tokenProjects } from './profile.js';
import { authorizationErrorView, type ConsentModel, consentPageView } from '../views/oauth-consent.js';
import type { WebWriter } from '../web-write.js';

const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'code_challenge',
  'code_challenge_method',
  'scope',
  'resource',
];

/**
 * The consent form's own schema (no v1 twin): the authorization request it repeats, checked again by the OAuth
 * service as at GET, and the answer; the grant's choices are the token form's (token-expiry.ts `grantOf`).
 */
const ConsentForm = Type.Object({
  ...Object.fromEntries(AUTHORIZE_PARAMS.map((name) => [name, Type.Optional(Text)])),
  decision: Type.Optional(Text),
});

/** The authorization request the consent form repeats (absent parameters undefined, as in a query). */
function consentOf(form: URLSearchParams) {
  const { decision, ...params } = parseFields(ConsentForm, {
    ...Object.fromEntries(AUTHORIZE_PARAMS.map((name) => [name, sentField(form, name)])),
    decision: sentField(form, 'decision'),
  });
  return { params: params as Record<string, string | undefined>, allowed: decision === 'allow' };
}

function refused(request: FastifyRequest, reply: FastifyReply, error: AuthorizationError) {
  const view = authorizationErrorView({
    session: request.webSession,
    error: error.error,
    description: error.description,
    returnTo: error.returnTo,
  });
  return reply.code(400).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(view);
}

/**
 * The consent page may send the browser on to the client's redirect URI: its form-action allows that
 * origin too (Chromium applies form-action to the redirect that follows a form post).
 */
function consentPage(reply: FastifyReply, model: ConsentModel, status = 200) {
  const csp = String(reply.getHeader('content-security-policy') ?? '');
  const origin = new URL(model.request.redirectUri).origin;
  if (csp) reply.header('content-security-policy', csp.replace("form-action 'self'", `form-action 'self' ${origin}`));
  return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(consentPageView(model));
}

/** GET /oauth/authorize (RFC 6749 §4.1.1): checked before sign-in, then the consent page; POST: the answer. */
export async function oauthPages(
  app: FastifyInstance,
  deps: { oauth: OAuthService; clock: Clock; projects: ProjectsService; webWrite: WebWriter },
) {
  const { oauth, clock, webWrite } = deps;

  async function check(params: Record<string, string | undefined>): Promise<AuthorizationRequest | AuthorizationError> {
    try {
      return await oauth.checkAuthorization(params);
    } catch (err) {
      if (err instanceof AuthorizationError) return err;
      throw err;
    }
  }

  app.get('/oauth/authorize', { config: { web: 'public' } }, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const checked = await check(query);
    if (checked instanceof AuthorizationError) return refused(request, reply, checked);
    if (!request.webSession) throw new SignInRequired();
    const projects = await tokenProjects(deps, request.webSession.user);
    return consentPage(reply, { session: request.webSession, request: checked, projects });
  });

  app.post('/oauth/authorize', async (request, reply) => {
    const session = sessionOf(request);
    const form = formOf(request);
    const { params, allowed } = consentOf(form);
    const checked = await check(params);
    if (checked instanceof AuthorizationError) return refused(request, reply, checked);
    if (!allowed) return reply.redirect(oauth.deny(checked), 303);
    const { scopes, expiry, date, projects, projectIds } = grantOf(form);
    const model: ConsentModel = {
      session,
      request: checked,
      scopes,
      expiry,
      date,
      projects: await tokenProjects(deps, session.user),
      choice: { projects, projectIds },
    };
    // The consent form carries no idempotency key: the answer (a one-time code in the redirect) is never stored.
    return webWrite(request, reply, {
      form: 'consent',
      entity: { type: 'oauth_grant', id: 0 },
      write: async (_, recordAudit) => {
        const choice = {
          scopes: model.scopes!,
          expiresAt: expiryFrom(model.expiry!, model.date!.trim(), clock.now()),
          projectIds: projectLimitOf(model.choice!),
        };
        const location = await oauth.approve(session.user.id, checked, choice, recordAudit).catch((err: unknown) => {
          throw err instanceof OAuthError ? new ApiError(422, err.error, err.message) : err;
        });
        request.log.info({ userId: session.user.id, clientId: checked.client.id }, 'OAuth authorization granted');
        return location;
      },
      redirect: (location) => location,
      rerender: (failure) =>
        consentPage(reply, { ...model, error: `${languageOf(session).t('integrations.consent.nothingAllowed')} ${failure.message}` }, 422),
    });
  });
}
