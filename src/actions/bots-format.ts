/** The realm_bot object, who receives realm_bot events, and the bot creation policy. */
import { cachedGroups } from './cache.ts';
import type { Services } from '../services.ts';
import { adminUserIds, type UserRow } from '../store/users.ts';
import { servicesOfBots, type BotServiceRow } from '../store/bots.ts';
import { BOT_TYPE } from '../store/users.ts';
import { badRequest, requireAdmin } from '../lib/errors.ts';
import { realmGroupSetting } from './group-settings.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { realmById } from '../store/realm.ts';
import { activeUserIds } from '../store/users.ts';
import { avatarUrl, isAdminRole } from './users-format.ts';

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

/** Bot creation policy values of the realm setting bot_creation_policy. */
export const BOT_CREATION = { EVERYONE: 1, LIMIT_GENERIC: 2, ADMINS_ONLY: 3 } as const;

export async function creationPolicy(svc: Services): Promise<number> {
  const realm = await realmById(svc.store.db, svc.realmId);
  return Number(realmSettings(realm.settings_json).bot_creation_policy ?? BOT_CREATION.EVERYONE);
}

/**
 * Zulip's check_bot_creation_policy: the organization's can_create_bots_group
 * may create any bot, can_create_write_only_bots_group incoming-webhook bots
 * too ("Insufficient permission" otherwise). The legacy bot_creation_policy,
 * which those groups replaced at feature level 344, still restricts
 * non-administrators when set.
 */
export async function checkBotCreationPolicy(svc: Services, me: UserRow, botType: number): Promise<void> {
  const realm = await realmById(svc.store.db, svc.realmId);
  const groups = await cachedGroups(svc, svc.store.db);
  const allowed =
    groups.allows(me, realmGroupSetting(realm.settings_json, 'can_create_bots_group', groups)) ||
    (botType === BOT_TYPE.INCOMING_WEBHOOK && groups.allows(me, realmGroupSetting(realm.settings_json, 'can_create_write_only_bots_group', groups)));
  if (!allowed) throw badRequest('Insufficient permission');
  if (isAdminRole(me.role)) return;
  const policy = await creationPolicy(svc);
  if (policy === BOT_CREATION.ADMINS_ONLY) throw requireAdmin();
  if (policy === BOT_CREATION.LIMIT_GENERIC && botType === BOT_TYPE.GENERIC) throw requireAdmin();
}

/**
 * Events for a bot's new owner (Zulip's send_bot_owner_update_events): a
 * non-admin previous owner gets realm_bot delete, a non-admin new owner gets
 * realm_bot add, the other administrators realm_bot update with owner_id,
 * and everyone realm_user update with bot_owner_id.
 */
export async function sendBotOwnerEvents(svc: Services, bot: UserRow, newOwner: UserRow, previousOwner: UserRow | null): Promise<void> {
  const updateUsers = new Set(await botEventRecipients(svc, bot));
  if (previousOwner && !isAdminRole(previousOwner.role)) {
    svc.bus.send({ type: 'realm_bot', op: 'delete', bot: { user_id: bot.id } }, [previousOwner.id]);
    updateUsers.delete(previousOwner.id);
  }
  if (!isAdminRole(newOwner.role)) {
    svc.bus.send({ type: 'realm_bot', op: 'add', bot: await formatBot(svc, bot) }, [newOwner.id]);
    updateUsers.delete(newOwner.id);
  }
  svc.bus.send({ type: 'realm_bot', op: 'update', bot: { user_id: bot.id, owner_id: newOwner.id } }, [...updateUsers]);
  svc.bus.send(
    { type: 'realm_user', op: 'update', person: { user_id: bot.id, bot_owner_id: newOwner.id } },
    await activeUserIds(svc.store.db, svc.realmId),
  );
}
