import { type Language, storedLanguage } from '../../i18n/i18n.js';
import type { NotificationKind } from './notification-kinds.js';
import { deliveries, insertNotifications, type NotificationsDeps } from './notification-delivery.js';

export interface DirectNotification {
  userId: number;
  kind: NotificationKind;
  key: string;
  words: (language: Language) => { text: string; subject: string };
  tokenId?: number | null;
}

/**
 * A notification without an event (an OAuth client connected, a webhook disabled): made at once, once per key,
 * its words written in the user's language.
 */
export async function notifyDirect(deps: NotificationsDeps, input: DirectNotification): Promise<void> {
  const [modeOf, [user]] = await Promise.all([deliveries(deps, [input.userId]), deps.repo.users([input.userId])]);
  const { text, subject } = input.words(storedLanguage(user?.language, user?.browser_language));
  await insertNotifications(deps, [
    {
      user_id: input.userId,
      kind: input.kind,
      key: input.key,
      event_id: null,
      project_id: null,
      item_id: null,
      token_id: input.tokenId ?? null,
      text,
      subject,
      delivery: modeOf(input.userId, input.kind),
      at: deps.clock.now().toISOString(),
    },
  ]);
}
