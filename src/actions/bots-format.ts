/** The realm_bot object and who receives realm_bot events. */
import type { Services } from '../services.ts';
import { adminUserIds, type UserRow } from '../store/users.ts';
import { servicesOfBots, type BotServiceRow } from '../store/bots.ts';
import { BOT_TYPE } from '../store/users.ts';
import { avatarUrl } from './users-format.ts';

/** The `services` list of a bot: outgoing webhooks list their endpoints; embedded bots their name and config. */
export function formatServices(bot: UserRow, services: BotServiceRow[]): Record<string, unknown>[] {
  if (bot.bot_type === BOT_TYPE.OUTGOING_WEBHOOK) {
    return services.map((s) => ({ base_url: s.base_url, interface: s.interface, token: s.token }));
  }
  if (bot.bot_type === BOT_TYPE.EMBEDDED && services.length) {
    return [{ config_data: {}, service_name: services[0].name }];
  }
  return [];
}

export function formatBotWith(svc: Services, bot: UserRow, services: BotServiceRow[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    email: bot.email,
    user_id: bot.id,
    full_name: bot.full_name,
    bot_type: bot.bot_type,
    is_active: !!bot.is_active,
    api_key: bot.api_key,
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: !!bot.default_all_public_streams,
    avatar_url: avatarUrl(svc.config, bot, false),
    services: formatServices(bot, services),
  };
  // Zulip sets owner_id only when the bot has an owner.
  if (bot.bot_owner_id !== null) out.owner_id = bot.bot_owner_id;
  return out;
}

export async function formatBot(svc: Services, bot: UserRow): Promise<Record<string, unknown>> {
  return formatBotWith(svc, bot, await servicesOfBots(svc.store.db, [bot.id]));
}

/** Administrators and the bot's owner (Zulip's bot_owner_user_ids). */
export async function botEventRecipients(svc: Services, bot: UserRow): Promise<number[]> {
  const ids = new Set(await adminUserIds(svc.store.db, svc.realmId));
  if (bot.bot_owner_id) ids.add(bot.bot_owner_id);
  return [...ids];
}
