import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';
import { formOf, idParam } from '../form.js';
import { sessionOf } from '../session.js';
import { DEFAULT_EXPIRY, EMPTY_TOKEN_FORM, expiryFrom, type TokenFormState } from '../token-expiry.js';
import { type ProfileModel, profilePageView, revokeTokenView } from '../views/profile-page.js';

async function profilePage(request: FastifyRequest, reply: FastifyReply, options: Omit<ProfileModel, 'session' | 'tokens' | 'form'> & { status?: number; form?: TokenFormState } = {}) {
  const session = sessionOf(request);
  const tokens = await request.server.ctx.tokens.listTokens(session.user.id);
  reply.header('cache-control', 'no-store');
  const view = profilePageView({ ...options, session, tokens, form: options.form ?? EMPTY_TOKEN_FORM });
  return reply.code(options.status ?? 200).type('text/html; charset=utf-8').send(view);
}

export async function profilePages(app: FastifyInstance) {
  const { tokens, clock } = app.ctx;

  app.get('/profile', async (request, reply) => {
    const notice = (request.query as Record<string, string | undefined>).revoked ? 'The token was revoked.' : null;
    return profilePage(request, reply, { notice });
  });

  app.get('/profile/tokens', async (_request, reply) => reply.redirect('/profile', 303));

  app.post('/profile/tokens', async (request, reply) => {
    const session = sessionOf(request);
    const body = formOf(request);
    const form: TokenFormState = {
      name: body.get('name') ?? '',
      expiry: body.get('expiry') ?? DEFAULT_EXPIRY,
      date: body.get('expiry_date') ?? '',
      scopes: body.getAll('scopes'),
    };
    try {
      const expiresAt = expiryFrom(form.expiry, form.date.trim(), clock.now());
      const created = await tokens.createToken({ userId: session.user.id, name: form.name, scopes: form.scopes, expiresAt });
      request.log.info({ tokenId: created.id, userId: session.user.id }, 'API token created in the web interface');
      return profilePage(request, reply, { status: 201, created: { name: form.name.trim(), token: created.token } });
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) {
        return profilePage(request, reply, { status: 422, form, error: `The token was not created: ${err.message}` });
      }
      throw err;
    }
  });

  app.post('/profile/tokens/:id/revoke', async (request, reply) => {
    const session = sessionOf(request);
    const id = idParam(request);
    const owned = (await tokens.listTokens(session.user.id)).find((t) => t.id === id);
    if (!owned) throw new ApiError(404, 'not_found', 'The token was not found.');
    if (formOf(request).get('confirmed') !== '1') return reply.type('text/html; charset=utf-8').send(revokeTokenView(session, owned));
    await tokens.revokeToken(id, session.user.id);
    request.log.info({ tokenId: id, userId: session.user.id }, 'API token revoked in the web interface');
    return reply.redirect('/profile?revoked=1', 303);
  });
}
