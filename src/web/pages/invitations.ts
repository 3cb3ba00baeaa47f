import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import { ApiError } from '../../shared/errors.js';
import type { InvitationOutcome } from '../../features/companies/invitations.service.js';
import { sessionCookieName } from '../../features/sessions/session-cookie.js';
import { formOf, idParam } from '../form.js';
import { formPage } from '../form-page.js';
import { checkLoginCsrf, loginCsrf, sessionOf, setSessionCookie } from '../session.js';
import { invitationPageView, invitationSentView, inviteFormView } from '../views/invitations.js';
import type { WebWriter } from '../web-write.js';

/**
 * Invitations (docs/design.md §20): "Invite" on the project page for its managers, and the link's page where the
 * invited person sets a password and is signed in.
 */
export async function invitationPages(
  app: FastifyInstance,
  deps: Pick<AppContext, 'invitations' | 'companies' | 'sessions' | 'config'> & { webWrite: WebWriter },
) {
  const { invitations, companies, sessions, config, webWrite } = deps;

  const invitePage = formPage(webWrite, {
    entity: 'project',
    async view(request, id, failure) {
      const session = sessionOf(request);
      const [project, choosable] = await Promise.all([invitations.projectForInvite(session.user, id), companies.activeCompanies()]);
      return inviteFormView({ session, project, companies: choosable, failure });
    },
  });

  app.get('/projects/:id/invite', async (request, reply) => invitePage.show(request, reply, idParam(request)));

  // The link is shown once, in the answer to this post; a second submission of the form lands on the project.
  app.post('/projects/:id/invite', async (request, reply) => {
    const session = sessionOf(request);
    const [id, form] = [idParam(request), formOf(request)];
    return invitePage.write<InvitationOutcome>(request, reply, id, {
      form: 'invite',
      redirect: () => `/projects/${id}`,
      respond: {
        status: 201,
        render: async (outcome) => {
          const project = await invitations.projectForInvite(session.user, id);
          return reply.code(201).type('text/html; charset=utf-8').send(invitationSentView({ session, project, outcome }));
        },
      },
      write: (_, recordAudit) =>
        invitations.invite(
          session.user,
          id,
          {
            name: form.get('name') ?? '',
            email: form.get('email') ?? '',
            company: form.get('company') ?? '',
            role: form.get('role') ?? '',
            companyItemsOnly: form.get('company_items_only') === '1',
          },
          request.language,
          recordAudit,
        ),
    });
  });

  async function invitationPage(request: FastifyRequest, reply: FastifyReply, token: string, status: number | null, error: string | null) {
    const state = await invitations.invitation(token);
    const csrf = loginCsrf(request, reply, config.sessionSecret, config.baseUrl);
    const code = status ?? (state.state === 'valid' ? 200 : state.state === 'unknown' ? 404 : 410);
    return reply
      .code(code)
      .type('text/html; charset=utf-8')
      .header('vary', 'Accept-Language')
      .header('referrer-policy', 'no-referrer')
      .send(invitationPageView({ language: request.language, state, token, csrf, error }));
  }

  const tokenOf = (request: FastifyRequest) => String((request.params as { token?: unknown }).token ?? '');

  app.get('/invitations/:token', { config: { web: 'public' } }, async (request, reply) =>
    invitationPage(request, reply, tokenOf(request), null, null),
  );

  /** Sets the password on the form path with nobody signed in yet (its own CSRF check, as sign-in). */
  app.post('/invitations/:token', { config: { web: 'public', ownCsrf: true } }, async (request, reply) => {
    const token = tokenOf(request);
    const form = formOf(request);
    let projectId = 0;
    return webWrite(request, reply, {
      user: null,
      form: 'invitation',
      entity: { type: 'invitation', id: 0 },
      redirect: () => (projectId ? `/projects/${projectId}` : `/invitations/${token}`),
      rerender: (failure, status) => invitationPage(request, reply, token, status, failure.message),
      refusals: [403],
      write: async () => {
        if (!checkLoginCsrf(request, config.sessionSecret, config.baseUrl)) {
          throw new ApiError(403, 'csrf_failed', 'The form expired. Please try again.');
        }
        const accepted = await invitations.accept(token, form.get('password') ?? '');
        // The link no longer opens (expired, used, forged): its page says why; nothing was made.
        if (!accepted) return;
        const { cookieValue, session } = await sessions.openSessionFor(accepted.user, request.cookies[sessionCookieName(config.baseUrl)]);
        setSessionCookie(reply, config.baseUrl, cookieValue, session);
        projectId = accepted.projectId;
        request.log.info({ userId: session.user.id }, 'invitation accepted');
      },
    });
  });
}
