/** The realm_bot object, who receives realm_bot events, and the bot creation policy. */
import { type StreamsSnapshot, cachedActiveUserIds, cachedGroups, cachedStreams } from './cache.ts';
import type { Services } from '../services.ts';
import { adminUserIds, type UserRow } from '../store/users.ts';
import { servicesOfBots, type BotServiceRow } from '../store/bots.ts';
import { BOT_TYPE } from '../store/users.ts';
import { badRequest } from '../lib/errors.ts';
import { realmGroupSetting } from './group-settings.ts';
import { realmById } from '../store/realm.ts';
import { isAdminRole } from './users-format.ts';

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

/**
 * A bot's realm_bots entry (and realm_bot add event). Since feature level
 * 474 it holds only what the bot's user object does not: its name, address,
 * type, owner, picture and state are read from that, its API key from
 * GET /bots/{id}/api_key.
 */
export function formatBotWith(bot: UserRow, services: BotServiceRow[], streams: StreamsSnapshot): Record<string, unknown> {
  return {
    user_id: bot.id,
    ...defaultStreamNames(bot, streams),
    default_all_public_streams: !!bot.default_all_public_streams,
    services: formatServices(bot, services),
  };
}

export async function formatBot(svc: Services, bot: UserRow): Promise<Record<string, unknown>> {
  return formatBotWith(bot, await servicesOfBots(svc.store.db, [bot.id]), await cachedStreams(svc));
}

/** The names of a bot's default channels, null for none (as Zulip shows them: by name). */
export function defaultStreamNames(
  bot: UserRow,
  streams: StreamsSnapshot,
): { default_sending_stream: string | null; default_events_register_stream: string | null } {
  const name = (id: number | null) => (id === null ? null : (streams.byId.get(id)?.name ?? null));
  return { default_sending_stream: name(bot.default_sending_stream_id), default_events_register_stream: name(bot.default_events_register_stream_id) };
}

/**
 * Who receives a bot's realm_bot events (Zulip's bot_owner_user_ids): its
 * owner and the administrators, or only its owner when one of its default
 * channels is private.
 */
export async function botEventRecipients(svc: Services, bot: UserRow): Promise<number[]> {
  const streams = await cachedStreams(svc);
  const isPrivate = (id: number | null) => id !== null && !!streams.byId.get(id)?.invite_only;
  const privateBot = isPrivate(bot.default_sending_stream_id) || isPrivate(bot.default_events_register_stream_id);
  const ids = new Set(privateBot ? [] : await adminUserIds(svc.store.db, svc.realmId));
  if (bot.bot_owner_id) ids.add(bot.bot_owner_id);
  return [...ids];
}

/**
 * Zulip's check_can_create_bot: the organization's can_create_bots_group may
 * create any bot, can_create_write_only_bots_group incoming-webhook bots too
 * ("Insufficient permission" otherwise). These groups replaced the
 * bot_creation_policy setting at feature level 344.
 */
export async function checkBotCreationPolicy(svc: Services, me: UserRow, botType: number): Promise<void> {
  if (await mayCreateAnyBot(svc, me)) return;
  const realm = await realmById(svc.store.db, svc.realmId);
  const groups = await cachedGroups(svc, svc.store.db);
  if (botType === BOT_TYPE.INCOMING_WEBHOOK && groups.allows(me, realmGroupSetting(realm.settings_json, 'can_create_write_only_bots_group', groups))) return;
  throw badRequest('Insufficient permission');
}

/** Whether the user is in can_create_bots_group (may create generic bots as well as the others). */
export async function mayCreateAnyBot(svc: Services, me: UserRow): Promise<boolean> {
  const realm = await realmById(svc.store.db, svc.realmId);
  const groups = await cachedGroups(svc, svc.store.db);
  return groups.allows(me, realmGroupSetting(realm.settings_json, 'can_create_bots_group', groups));
}

/**
 * Events for a bot's new owner (Zulip's send_bot_owner_update_events): a
 * non-admin previous owner gets realm_bot delete, a non-admin new owner gets
 * realm_bot add (administrators list every bot already), and everyone
 * realm_user update with bot_owner_id. Since feature level 474 there is no
 * realm_bot update with owner_id: clients read the owner from the user.
 */
export async function sendBotOwnerEvents(svc: Services, bot: UserRow, newOwner: UserRow, previousOwner: UserRow | null): Promise<void> {
  if (previousOwner && !isAdminRole(previousOwner.role)) {
    svc.bus.send({ type: 'realm_bot', op: 'delete', bot: { user_id: bot.id } }, [previousOwner.id]);
  }
  if (!isAdminRole(newOwner.role)) {
    svc.bus.send({ type: 'realm_bot', op: 'add', bot: await formatBot(svc, bot) }, [newOwner.id]);
  }
  svc.bus.send(
    { type: 'realm_user', op: 'update', person: { user_id: bot.id, bot_owner_id: newOwner.id } },
    await cachedActiveUserIds(svc),
  );
}
