import { invalidField } from '../../i18n/reasons.js';
import { type Language, type MessageKey, message } from '../../i18n/i18n.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import { ApiError } from '../../shared/errors.js';
import type { Actor } from '../../domain/policy.js';
import { formOf, idParam, parseFields, parseId, sentField, textField } from '../form.js';
import { Type } from 'typebox';
import { Text } from '../../http/write-inputs.js';
import { sessionOf } from '../session.js';
import type { FormFailure, WebWrite, WebWriter } from '../web-write.js';
import type { NotificationPreferencesModel } from '../views/notifications-page.js';
import { EMPTY_TOKEN_FORM, expiryFrom, projectLimitOf, SCOPE_PRESETS, tokenFormOf, type TokenFormState } from '../token-expiry.js';
import {
  disableWebhookView,
  EMPTY_WEBHOOK_FORM,
  type ProfileModel,
  profilePageView,
  revokeTokenView,
  type WebhookFormState,
  type WebhooksModel,
} from '../views/profile-page.js';

/** Deliveries shown per webhook endpoint. */
const DELIVERIES_SHOWN = 10;

type ProfileDeps = Pick<AppContext, 'tokens' | 'webhooks' | 'projects' | 'config' | 'clock' | 'oauth' | 'notifications' | 'users'> & {
  webWrite: WebWriter;
};

/** What the password form needs besides: the sessions it ends. */
type AccountDeps = Pick<AppContext, 'sessions'>;

type WebhookOptions = Partial<Pick<WebhooksModel, 'form' | 'error' | 'created'>>;

async function webhooksModel(deps: ProfileDeps, actor: Actor, options: WebhookOptions): Promise<WebhooksModel> {
  const { webhooks, projects, config } = deps;
  const [endpoints, offered] = await Promise.all([
    webhooks.listWithDeliveries(actor, DELIVERIES_SHOWN),
    projects.listProjects(actor, { archived: 'active', limit: 200, offset: 0 }),
  ]);
  const projectNames = new Map(offered.projects.map((p) => [p.id, p.name]));
  // An endpoint's project may be archived since (or beyond the first 200): its name, if the user still sees it.
  for (const id of new Set(endpoints.map((e) => e.project_id))) {
    if (id === null || projectNames.has(id)) continue;
    const card = await projects.getProject(actor, id).catch(() => null);
    if (card) projectNames.set(id, card.project.name);
  }
  return {
    endpoints,
    projects: offered.projects.map((p) => ({ id: p.id, name: p.name })),
    projectNames,
    form: options.form ?? EMPTY_WEBHOOK_FORM,
    allowPrivate: config.webhookAllowPrivate,
    error: options.error ?? null,
    created: options.created,
  };
}

/** The projects a token may be limited to: those the user sees, archived ones too (read-only, still readable). */
export async function tokenProjects(deps: Pick<AppContext, 'projects'>, actor: Actor) {
  const { projects } = await deps.projects.listProjects(actor, { archived: 'all', limit: 500, offset: 0 });
  return projects.map((p) => ({ id: p.id, name: p.name, archived: Boolean(p.archived) }));
}

type ProfileOptions = Omit<
  ProfileModel,
  'session' | 'tokens' | 'connections' | 'form' | 'webhooks' | 'projects' | 'notifications' | 'account'
> & {
  status?: number;
  form?: TokenFormState;
  webhooks?: WebhookOptions;
  /** An account form (time zone, password) refused: shown again with the message beside its field. */
  failure?: FormFailure | null;
};

async function profilePage(deps: ProfileDeps, request: FastifyRequest, reply: FastifyReply, options: ProfileOptions = {}) {
  const session = sessionOf(request);
  const [tokens, connections, webhooks, notifications, projects, projectRoles] = await Promise.all([
    deps.tokens.listTokens(session.user.id),
    deps.oauth.connectionsOf(session.user.id),
    webhooksModel(deps, session.user, options.webhooks ?? {}),
    notificationPreferencesModel(deps, session.user, request),
    tokenProjects(deps, session.user),
    deps.users.projectRoles(session.user.id),
  ]);
  reply.header('cache-control', 'no-store');
  const account = { session, projectRoles, failure: options.failure ?? null, now: deps.clock.now() };
  const form = options.form ?? EMPTY_TOKEN_FORM;
  const view = profilePageView({ ...options, session, tokens, connections, form, webhooks, notifications, projects, account });
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(view);
}

/**
 * The Profile's forms, each with its own schema (no v1 twin): their shapes; the users, tokens and webhooks services
 * check the rest. The token form's fields are the consent's (token-expiry.ts `tokenFormOf`).
 */
const TimeZoneForm = Type.Object({ time_zone: Text });
const LanguageForm = Type.Object({ language: Text });
const PasswordForm = Type.Object({ current_password: Text, new_password: Text, confirm_password: Text });
const PresetForm = Type.Object({ preset: Type.Optional(Text) });
const ConfirmForm = Type.Object({ confirmed: Type.Boolean() });
const WebhookForm = Type.Object({ url: Text, events: Type.Array(Text), project_id: Text });

const timeZoneOf = (form: URLSearchParams) => parseFields(TimeZoneForm, { time_zone: textField(form, 'time_zone') }).time_zone;

/** The language chosen; null for "As my browser asks" (""). */
const languageChoiceOf = (form: URLSearchParams) => parseFields(LanguageForm, { language: textField(form, 'language') }).language || null;

function passwordChangeOf(form: URLSearchParams) {
  const fields = parseFields(PasswordForm, {
    current_password: textField(form, 'current_password'),
    new_password: textField(form, 'new_password'),
    confirm_password: textField(form, 'confirm_password'),
  });
  return { current: fields.current_password, next: fields.new_password, confirm: fields.confirm_password };
}

/** A scope preset's button, pressed without the script (undefined: none, or one we do not offer). */
const presetOf = (form: URLSearchParams) => {
  const { preset } = parseFields(PresetForm, { preset: sentField(form, 'preset') });
  return SCOPE_PRESETS.find((p) => p.value === preset);
};

/** A revocation or a disabling asks first: the confirmation page posts `confirmed=1`. */
const confirmedOf = (form: URLSearchParams) => parseFields(ConfirmForm, { confirmed: form.get('confirmed') === '1' }).confirmed;

/** The webhook form as sent ("" for the project: all the user's projects), shown again if the write refuses it. */
function webhookFormOf(form: URLSearchParams): WebhookFormState {
  const fields = parseFields(WebhookForm, {
    url: textField(form, 'url'),
    events: form.getAll('events'),
    project_id: textField(form, 'project_id'),
  });
  return { url: fields.url, events: fields.events, project: fields.project_id };
}

/** The webhook's project: null for all the user's projects; a value that is no id is refused beside the field. */
function webhookProjectOf(form: WebhookFormState): number | null {
  if (form.project === '') return null;
  const projectId = parseId(form.project);
  if (projectId === null) throw invalidField('project', 'reason.chooseOfferedProject');
  return projectId;
}

/** What the Profile says after an account form, by the redirect's `saved`. */
const ACCOUNT_NOTICES: Record<string, MessageKey> = {
  'time-zone': 'profile.saved.timeZone',
  password: 'profile.saved.password',
  language: 'profile.language.saved',
};

/**
 * The account forms (docs/design.md §14): the time zone, and a password change that ends the user's other
 * sessions. Both go through the web's one form path (CSRF, idempotency key, audit record, 422, 303).
 */
export async function accountPages(app: FastifyInstance, deps: ProfileDeps & AccountDeps) {
  const { users, sessions, webWrite } = deps;

  function accountWrite(request: FastifyRequest, reply: FastifyReply, form: string, write: WebWrite<unknown>['write']) {
    const session = sessionOf(request);
    return webWrite(request, reply, {
      form,
      entity: { type: 'user', id: session.user.id },
      redirect: () => `/profile?saved=${form}#${form}-title`,
      rerender: (failure, status) => profilePage(deps, request, reply, { status, failure }),
      write,
    });
  }

  app.post('/profile/time-zone', async (request, reply) => {
    const { user } = sessionOf(request);
    return accountWrite(request, reply, 'time-zone', (_, recordAudit) =>
      users.setTimeZone(user.id, timeZoneOf(formOf(request)), recordAudit),
    );
  });

  app.post('/profile/language', async (request, reply) => {
    const { user } = sessionOf(request);
    return accountWrite(request, reply, 'language', (_, recordAudit) =>
      users.setLanguage(user.id, languageChoiceOf(formOf(request)), recordAudit),
    );
  });

  app.post('/profile/password', async (request, reply) => {
    const session = sessionOf(request);
    const form = formOf(request);
    return accountWrite(request, reply, 'password', async (_, recordAudit) => {
      const input = passwordChangeOf(form);
      // The user's other sessions end with the change, in its transaction.
      await users.changePassword(session.user.id, input, async (trx) => {
        await sessions.endOtherSessions(session.user.id, session, trx);
        await recordAudit(trx);
      });
      request.log.info({ userId: session.user.id }, 'password changed in the web interface; other sessions ended');
    });
  });
}

/** The "Notifications" block's model: the modes, whether email is on, whether the address is failing. */
async function notificationPreferencesModel(
  deps: ProfileDeps,
  user: { id: number; email: string },
  request: FastifyRequest,
): Promise<NotificationPreferencesModel> {
  const [modes, failing] = await Promise.all([deps.notifications.preferences(user.id), deps.notifications.failingAddress(user)]);
  const saved = (request.query as Record<string, string | undefined>).notifications === 'saved';
  return { modes, failing, emailEnabled: deps.config.smtpUrl !== null, saved };
}

/** The notice after a redelivery, from the redirect's `redelivered` (the receiver's HTTP status, or `none`). */
function redeliveredNotice(language: Language, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (/^[1-5][0-9]{2}$/.test(value)) {
    return Number(value) >= 200 && Number(value) < 300
      ? message(language, 'integrations.notice.redeliveredOk', { status: value })
      : message(language, 'integrations.notice.redeliveredRefused', { status: value });
  }
  return value === 'none' ? message(language, 'integrations.notice.redeliveredNone') : null;
}

async function showProfile(deps: ProfileDeps, request: FastifyRequest, reply: FastifyReply) {
  const query = request.query as Record<string, string | undefined>;
  const notice = query.saved
    ? Object.hasOwn(ACCOUNT_NOTICES, query.saved)
      ? message(request.language, ACCOUNT_NOTICES[query.saved]!)
      : null
    : query.revoked
      ? message(request.language, 'integrations.notice.tokenRevoked')
      : query.webhook_disabled
        ? message(request.language, 'integrations.notice.webhookDisabled')
        : redeliveredNotice(request.language, query.redelivered);
  return profilePage(deps, request, reply, { notice });
}

async function createToken(deps: ProfileDeps, request: FastifyRequest, reply: FastifyReply) {
  const { tokens, clock, webWrite } = deps;
  const session = sessionOf(request);
  const body = formOf(request);
  // Nothing in it refuses (text, boxes): read before the write, to be shown again if the write refuses it.
  const form = tokenFormOf(body);
  // A scope preset without the script: the form again with exactly the preset's scopes ticked.
  const preset = presetOf(body);
  if (preset) return profilePage(deps, request, reply, { form: { ...form, scopes: [...preset.scopes] } });
  // The raw token is shown once, in the answer to this post; a second submission lands on the list.
  return webWrite(request, reply, {
    form: 'token',
    entity: { type: 'token', id: 0 },
    write: async (_, recordAudit) => {
      const expiresAt = expiryFrom(form.expiry, form.date.trim(), clock.now());
      const input = { userId: session.user.id, name: form.name, scopes: form.scopes, expiresAt, projectIds: projectLimitOf(form) };
      const created = await tokens.createToken(input, { recordAudit });
      request.log.info({ tokenId: created.id, userId: session.user.id }, 'API token created in the web interface');
      return created;
    },
    redirect: () => '/profile#tokens-title',
    respond: {
      status: 201,
      render: (created) => profilePage(deps, request, reply, { status: 201, created: { name: form.name.trim(), token: created.token } }),
    },
    rerender: (failure, status) =>
      profilePage(deps, request, reply, {
        status,
        form,
        error: `${message(request.language, 'integrations.tokens.notCreated')} ${failure.message}`,
      }),
  });
}

async function revokeToken(deps: ProfileDeps, request: FastifyRequest, reply: FastifyReply) {
  const { tokens, webWrite } = deps;
  const session = sessionOf(request);
  const [id, form] = [idParam(request), formOf(request)];
  const owned = (await tokens.listTokens(session.user.id)).find((t) => t.id === id);
  if (!owned) throw new ApiError(404, 'not_found', 'The token was not found.');
  if (!confirmedOf(form)) return reply.type('text/html; charset=utf-8').send(revokeTokenView(session, owned));
  return webWrite(request, reply, {
    form: 'revoke-token',
    entity: { type: 'token', id },
    redirect: () => '/profile?revoked=1',
    rerender: (failure, status) => profilePage(deps, request, reply, { status, error: failure.message }),
    // An OAuth token row: its grant ends with it, so the application's refresh token stops working.
    write: async (_, recordAudit) => {
      await tokens.revokeToken(id, { ownerId: session.user.id, recordAudit });
      request.log.info({ tokenId: id, userId: session.user.id }, 'API token revoked in the web interface');
    },
  });
}

async function createWebhook(deps: ProfileDeps, request: FastifyRequest, reply: FastifyReply) {
  const { webhooks, webWrite } = deps;
  const session = sessionOf(request);
  const form = webhookFormOf(formOf(request));
  // The secret is shown once, in the answer to this post; a second submission lands on the list.
  return webWrite(request, reply, {
    form: 'webhook',
    entity: { type: 'webhook', id: 0 },
    write: async (_, recordAudit) => {
      const projectId = webhookProjectOf(form);
      // 404: the chosen project is not one the user can see (any more): shown beside the field.
      const created = await webhooks
        .create(session.user, { url: form.url, events: form.events, projectId }, recordAudit)
        .catch((err: unknown) => {
          throw err instanceof ApiError && err.status === 404 ? invalidField('project', 'reason.projectNotFound') : err;
        });
      request.log.info({ webhookId: created.id, userId: session.user.id }, 'webhook created in the web interface');
      return created;
    },
    redirect: () => '/profile#webhooks-title',
    respond: {
      status: 201,
      render: async (created) => {
        const url = (await webhooks.list(session.user)).find((w) => w.id === created.id)?.url ?? form.url.trim();
        return profilePage(deps, request, reply, { status: 201, webhooks: { created: { url, secret: created.secret } } });
      },
    },
    rerender: (failure, status) => {
      const field = failure.errors[0]?.field || null;
      const text = `${message(request.language, 'integrations.webhooks.notCreated')} ${failure.message}`;
      return profilePage(deps, request, reply, { status, webhooks: { form, error: { message: text, field } } });
    },
  });
}

async function disableWebhook(deps: ProfileDeps, request: FastifyRequest, reply: FastifyReply) {
  const { webhooks, webWrite } = deps;
  const session = sessionOf(request);
  const [id, form] = [idParam(request), formOf(request)];
  const owned = (await webhooks.list(session.user)).find((w) => w.id === id);
  if (!owned) throw new ApiError(404, 'not_found', 'The webhook was not found.');
  if (!confirmedOf(form)) return reply.type('text/html; charset=utf-8').send(disableWebhookView(session, owned));
  return webWrite(request, reply, {
    form: 'disable-webhook',
    entity: { type: 'webhook', id },
    redirect: () => '/profile?webhook_disabled=1',
    rerender: (failure, status) =>
      profilePage(deps, request, reply, { status, webhooks: { error: { message: failure.message, field: null } } }),
    write: async (_, recordAudit) => {
      await webhooks.disable(session.user, id, { recordAudit });
      request.log.info({ webhookId: id, userId: session.user.id }, 'webhook disabled in the web interface');
    },
  });
}

async function redeliverWebhook(deps: ProfileDeps, request: FastifyRequest, reply: FastifyReply) {
  const { webhooks, webWrite } = deps;
  const session = sessionOf(request);
  const id = idParam(request);
  return webWrite(request, reply, {
    form: 'redeliver',
    entity: { type: 'webhook_delivery', id },
    write: async (_, recordAudit) => {
      const result = await webhooks.redeliver(session.user, id, recordAudit);
      request.log.info(
        { deliveryId: id, userId: session.user.id, status: result.status },
        'webhook delivery sent again from the web interface',
      );
      return result;
    },
    redirect: (result) => `/profile?redelivered=${result.status ?? 'none'}#webhooks-title`,
    rerender: (failure, status) =>
      profilePage(deps, request, reply, { status, webhooks: { error: { message: failure.message, field: null } } }),
  });
}

/** The Profile, its API tokens and webhooks: one small handler per route (above). */
export async function profilePages(app: FastifyInstance, deps: ProfileDeps) {
  app.get('/profile', (request, reply) => showProfile(deps, request, reply));
  app.get('/profile/tokens', async (_request, reply) => reply.redirect('/profile', 303));
  app.post('/profile/tokens', (request, reply) => createToken(deps, request, reply));
  app.post('/profile/tokens/:id/revoke', (request, reply) => revokeToken(deps, request, reply));
  app.get('/profile/webhooks', async (_request, reply) => reply.redirect('/profile', 303));
  app.post('/profile/webhooks', (request, reply) => createWebhook(deps, request, reply));
  app.post('/profile/webhooks/:id/disable', (request, reply) => disableWebhook(deps, request, reply));
  app.post('/profile/webhooks/deliveries/:id/redeliver', (request, reply) => redeliverWebhook(deps, request, reply));
}
