/** The realm_bot object and who receives realm_bot events. */
import type { Services } from '../services.ts';
import { adminUserIds, userById, type UserRow } from '../store/users.ts';
import { avatarUrl } from './users-format.ts';

export async function formatBot(svc: Services, bot: UserRow): Promise<Record<string, unknown>> {
  const owner = bot.bot_owner_id ? await userById(svc.store.db, svc.realmId, bot.bot_owner_id) : undefined;
  return {
    user_id: bot.id,
    full_name: bot.full_name,
    bot_type: bot.bot_type,
    is_active: !!bot.is_active,
    api_key: bot.api_key,
    email: bot.email,
    avatar_url: avatarUrl(svc.config, bot, false),
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: !!bot.default_all_public_streams,
    owner_id: owner ? owner.id : null,
    services: [],
  };
}

/** Administrators and the bot's owner (Zulip's bot_owner_user_ids). */
export async function botEventRecipients(svc: Services, bot: UserRow): Promise<number[]> {
  const ids = new Set(await adminUserIds(svc.store.db, svc.realmId));
  if (bot.bot_owner_id) ids.add(bot.bot_owner_id);
  return [...ids];
}
