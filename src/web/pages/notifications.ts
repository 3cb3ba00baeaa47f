import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import { notificationLink } from '../../features/notifications/email-content.js';
import { errorPage } from '../errors.js';
import { Type } from 'typebox';
import { Text } from '../../http/write-inputs.js';
import { formOf, idParam, parseFields, textField } from '../form.js';
import { sessionOf } from '../session.js';
import { notificationsPageView } from '../views/notifications-page.js';
import type { WebWriter } from '../web-write.js';

/**
 * The preferences form's own schema (no v1 twin): a mode (text) per kind of notification, each checked by the
 * notifications service (a kind or a mode it does not know: 422).
 */
const PreferencesForm = Type.Object({}, { additionalProperties: Text });

/** Every field of the form but its guards: the kind it names and the mode chosen. */
const preferencesOf = (form: URLSearchParams): Record<string, string> =>
  parseFields(
    PreferencesForm,
    Object.fromEntries([...form.keys()].filter((k) => k !== '_csrf' && k !== '_key').map((k) => [k, textField(form, k)])),
  ) as Record<string, string>;

/**
 * Notifications in the web (docs/design.md §15): the list, following one (marks it read), "Mark all read",
 * the unread count for the script's refresh (the navigation's is counted in web-plugin.ts), and the Profile's preferences.
 */
export async function notificationPages(app: FastifyInstance, deps: Pick<AppContext, 'notifications'> & { webWrite: WebWriter }) {
  const { notifications, webWrite } = deps;

  app.get('/notifications', async (request, reply) => {
    const session = sessionOf(request);
    const list = await notifications.list(session.user.id);
    const unread = session.unreadNotifications ?? (await notifications.unreadCount(session.user.id));
    const notice = (request.query as Record<string, string | undefined>).read === 'all' ? 'Every notification is marked read.' : null;
    reply.header('cache-control', 'no-store');
    return reply.type('text/html; charset=utf-8').send(notificationsPageView({ session, notifications: list, unread, notice }));
  });

  app.get('/notifications/count', async (request, reply) => {
    const session = sessionOf(request);
    reply.header('cache-control', 'no-store');
    return reply.send({ unread: await notifications.unreadCount(session.user.id) });
  });

  app.get('/notifications/:id/open', async (request, reply) => {
    const session = sessionOf(request);
    const row = await notifications.open(session.user.id, idParam(request));
    return reply.redirect(new URL(notificationLink('', row), 'http://x').pathname, 303);
  });

  app.post('/notifications/read-all', async (request, reply) => {
    const { user } = sessionOf(request);
    return webWrite(request, reply, {
      form: 'read-all',
      entity: { type: 'user', id: user.id },
      redirect: () => '/notifications?read=all',
      rerender: (failure, status) => errorPage(request, reply, status, failure.message),
      write: (_, recordAudit) => notifications.markAllRead(user.id, recordAudit),
    });
  });

  app.get('/profile/notifications', async (_request, reply) => reply.redirect('/profile#notifications', 303));

  app.post('/profile/notifications', async (request, reply) => {
    const { user } = sessionOf(request);
    const modes = preferencesOf(formOf(request));
    return webWrite(request, reply, {
      form: 'notifications',
      entity: { type: 'user', id: user.id },
      redirect: () => '/profile?notifications=saved#notifications',
      // The form offers only valid choices: a refusal is a forged post, answered with the error page.
      rerender: (failure, status) => errorPage(request, reply, status, failure.message),
      write: (_, recordAudit) => notifications.setPreferences(user.id, modes, recordAudit),
    });
  });
}
