/**
 * Zulip's system bots (cross-realm bots): Notification Bot, Welcome Bot and
 * the Email Gateway bot, created on first use.
 */
import type { Services } from '../services.ts';
import { randomAlnum } from '../lib/util.ts';
import { insertSystemBot, userByDeliveryEmail, type UserRow } from '../store/users.ts';

/** Zulip's system bot addresses (the same on every server). */
export const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';
export const WELCOME_BOT_EMAIL = 'welcome-bot@zulip.com';
export const EMAIL_GATEWAY_BOT_EMAIL = 'emailgateway@zulip.com';

/** The system bot with this address, created when missing. */
export async function systemBot(svc: Services, email: string, fullName: string): Promise<UserRow> {
  const existing = await userByDeliveryEmail(svc.store.db, svc.realmId, email);
  if (existing) return existing;
  try {
    return await insertSystemBot(svc.store.db, svc.realmId, email, fullName, randomAlnum(32));
  } catch (e) {
    // Created concurrently by another request: use that one.
    const again = await userByDeliveryEmail(svc.store.db, svc.realmId, email);
    if (again) return again;
    throw e;
  }
}

export const welcomeBot = (svc: Services): Promise<UserRow> => systemBot(svc, WELCOME_BOT_EMAIL, 'Welcome Bot');
export const emailGatewayBot = (svc: Services): Promise<UserRow> => systemBot(svc, EMAIL_GATEWAY_BOT_EMAIL, 'Email Gateway');
export const notificationBot = (svc: Services): Promise<UserRow> => systemBot(svc, NOTIFICATION_BOT_EMAIL, 'Notification Bot');

/** Zulip's silent_mention_syntax_for_user, as the system bots' notices name people: `@_**Full Name|id**`. */
export const silentMention = (u: Pick<UserRow, 'full_name' | 'id'>): string => `@_**${u.full_name}|${u.id}**`;
