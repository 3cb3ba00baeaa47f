import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import { ApiError } from '../../shared/errors.js';
import type { InvitationOutcome } from '../../features/companies/invitations.service.js';
import { sessionCookieName } from '../../features/sessions/session-cookie.js';
import { formOf, idParam, parseFields, textField } from '../form.js';
import { formPage } from '../form-page.js';
import { checkLoginCsrf, loginCsrf, sessionOf, setSessionCookie } from '../session.js';
import { invitationPageView, invitationSentView, inviteFormView } from '../views/invitations.js';
import type { FormFailure, WebWriter } from '../web-write.js';
import { Type } from 'typebox';
import { Text } from '../../http/write-inputs.js';

type InvitationDeps = Pick<AppContext, 'invitations' | 'companies' | 'sessions' | 'config'> & { webWrite: WebWriter };

/** The invitation forms' own schemas (no v1 twin): text, checked further by the invitations service. */
const InviteForm = Type.Object({ name: Text, email: Text, company: Text, role: Text, company_items_only: Type.Boolean() });
const AcceptForm = Type.Object({ password: Text });

const inviteOf = (form: URLSearchParams) => {
  const { company_items_only: companyItemsOnly, ...fields } = parseFields(InviteForm, {
    name: textField(form, 'name'),
    email: textField(form, 'email'),
    company: textField(form, 'company'),
    role: textField(form, 'role'),
    company_items_only: form.get('company_items_only') === '1',
  });
  return { ...fields, companyItemsOnly };
};

const acceptanceOf = (form: URLSearchParams) => parseFields(AcceptForm, { password: textField(form, 'password') });

async function inviteView({ invitations, companies }: InvitationDeps, request: FastifyRequest, id: number, failure: FormFailure | null) {
  const session = sessionOf(request);
  const [project, choosable] = await Promise.all([invitations.projectForInvite(session.user, id), companies.activeCompanies()]);
  return inviteFormView({ session, project, companies: choosable, failure });
}

// The link is shown once, in the answer to this post; a second submission of the form lands on the project.
async function invite(deps: InvitationDeps, page: ReturnType<typeof formPage>, request: FastifyRequest, reply: FastifyReply) {
  const session = sessionOf(request);
  const [id, form] = [idParam(request), formOf(request)];
  return page.write<InvitationOutcome>(request, reply, id, {
    form: 'invite',
    redirect: () => `/projects/${id}`,
    respond: {
      status: 201,
      render: async (outcome) => {
        const project = await deps.invitations.projectForInvite(session.user, id);
        return reply.code(201).type('text/html; charset=utf-8').send(invitationSentView({ session, project, outcome }));
      },
    },
    write: (_, recordAudit) => deps.invitations.invite(session.user, id, inviteOf(form), request.language, recordAudit),
  });
}

async function invitationPage(
  { invitations, config }: InvitationDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number | null,
  error: string | null,
) {
  const token = tokenOf(request);
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

/** Sets the password on the form path with nobody signed in yet (its own CSRF check, as sign-in). */
async function acceptInvitation(deps: InvitationDeps, request: FastifyRequest, reply: FastifyReply) {
  const { invitations, sessions, config } = deps;
  const token = tokenOf(request);
  const form = formOf(request);
  let projectId = 0;
  return deps.webWrite(request, reply, {
    user: null,
    form: 'invitation',
    entity: { type: 'invitation', id: 0 },
    redirect: () => (projectId ? `/projects/${projectId}` : `/invitations/${token}`),
    rerender: (failure, status) => invitationPage(deps, request, reply, status, failure.message),
    refusals: [403],
    write: async () => {
      if (!checkLoginCsrf(request, config.sessionSecret, config.baseUrl)) {
        throw new ApiError(403, 'csrf_failed', 'The form expired. Please try again.');
      }
      const { password } = acceptanceOf(form);
      const accepted = await invitations.accept(token, password);
      // The link no longer opens (expired, used, forged): its page says why; nothing was made.
      if (!accepted) return;
      const { cookieValue, session } = await sessions.openSessionFor(accepted.user, request.cookies[sessionCookieName(config.baseUrl)]);
      setSessionCookie(reply, config.baseUrl, cookieValue, session);
      projectId = accepted.projectId;
      request.log.info({ userId: session.user.id }, 'invitation accepted');
    },
  });
}

/**
 * Invitations (docs/design.md §20): "Invite" on the project page for its managers, and the link's page where the
 * invited person sets a password and is signed in.
 */
export async function invitationPages(app: FastifyInstance, deps: InvitationDeps) {
  const invitePage = formPage(deps.webWrite, { entity: 'project', view: (request, id, failure) => inviteView(deps, request, id, failure) });
  app.get('/projects/:id/invite', async (request, reply) => invitePage.show(request, reply, idParam(request)));
  app.post('/projects/:id/invite', (request, reply) => invite(deps, invitePage, request, reply));
  const publicPage = { config: { web: 'public' as const } };
  app.get('/invitations/:token', publicPage, (request, reply) => invitationPage(deps, request, reply, null, null));
  app.post('/invitations/:token', { config: { web: 'public', ownCsrf: true } }, (request, reply) => acceptInvitation(deps, request, reply));
}
