/**
 * Creating channels (POST /channels/create and the legacy subscribe path),
 * adding subscriptions in a transaction, and the stream/subscription events
 * that follow, with Notification Bot's announcement.
 */
import { lockSubscriptionsOf } from '../store/locks.ts';
import { cachedActiveUserIdSet, cachedGroups } from './cache.ts';
import { checkChannelFolderId } from './channel-folders.ts';
import { sendMessage } from './messages.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { transaction } from '../store/db.ts';
import { badRequest, requireOwner } from '../lib/errors.ts';
import { nowSeconds } from '../lib/util.ts';
import { channelLinkSyntax } from '../lib/message-url.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { realmById } from '../store/realm.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import { activateSubscription, insertStream, streamByName, subscriptionRowsOfUser, usedColors, type StreamRow } from '../store/streams.ts';
import { checkChannelPolicyPermission, Groups, realmGroupSetting, type GroupSettingValue } from './group-settings.ts';
import { metadataViewers, STREAM_GROUP_SETTINGS, type StreamGroupSetting } from './access.ts';
import { formatStream, formatSubscription, loadChannelContext, pickColor, renderDescription, STREAM_GROUP_SETTING_DEFAULTS, type ChannelContext } from './streams-format.ts';
import { notificationBot, silentMention } from './system-bots.ts';
import { channelsCreatedNotices } from './channel-notices.ts';
import { type TopicsPolicy, channelAlreadyExists, checkDescription, checkStreamGroupSetting, checkStreamName, parseRetention } from './streams.ts';
import { sendDefaultStreamsEvent } from './streams-default.ts';
import { archivedStreamMeta, archivedSubscriptionsMeta } from './streams-archive.ts';

// ---------------------------------------------------------------------------
// Creation

export interface NewChannelSpec {
  name: string;
  description?: string;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers?: boolean | null;
  messageRetentionDays?: string | number;
  topicsPolicy?: TopicsPolicy;
  folderId?: number | null;
  groupSettings: Partial<Record<StreamGroupSetting, GroupSettingValue>>;
  isDefault: boolean;
}

/** Permission checks for creating channels (Zulip's list_to_streams rules). */
export async function checkCanCreate(svc: Services, db: Tx, user: UserRow, specs: NewChannelSpec[], groups: Groups): Promise<void> {
  const realm = await realmById(db, svc.realmId);
  const settings = realmSettings(realm.settings_json);
  for (const s of specs) {
    const setting = s.inviteOnly ? 'can_create_private_channel_group' : 'can_create_public_channel_group';
    if (!groups.allows(user, realmGroupSetting(realm.settings_json, setting, groups))) throw badRequest('Insufficient permission');
    if (s.isDefault && user.role > ROLE.ADMINISTRATOR) throw badRequest('Insufficient permission');
    if (s.inviteOnly && s.isDefault) throw badRequest('A default channel cannot be private.');
    checkChannelPolicyPermission(user, realm.settings_json, groups, {
      topicsPolicy: s.topicsPolicy !== undefined,
      deletePolicy: s.groupSettings.can_delete_any_message_group !== undefined || s.groupSettings.can_delete_own_message_group !== undefined,
    });
  }
  if (specs.some((s) => s.isWebPublic)) {
    if (!svc.config.webPublicStreamsEnabled || !settings.enable_spectator_access) throw badRequest('Web-public channels are not enabled.');
    if (!groups.allows(user, realmGroupSetting(realm.settings_json, 'can_create_web_public_channel_group', groups))) {
      throw badRequest('Insufficient permission');
    }
  }
  if (specs.some((s) => s.messageRetentionDays !== undefined && s.messageRetentionDays !== 'realm_default') && user.role !== ROLE.OWNER) {
    throw requireOwner();
  }
}

/** Inserts one channel (inside the caller's transaction). */
export async function insertChannel(svc: Services, tx: Tx, user: UserRow | null, spec: NewChannelSpec, groups: Groups, validUsers: ReadonlySet<number>): Promise<StreamRow> {
  const name = checkStreamName(svc, spec.name);
  if (await streamByName(tx, svc.realmId, name)) throw channelAlreadyExists(name);
  const description = checkDescription(svc, spec.description ?? '');
  const retention = spec.messageRetentionDays === undefined ? null : parseRetention(spec.messageRetentionDays);
  const history = spec.isWebPublic || !spec.inviteOnly ? true : (spec.historyPublicToSubscribers ?? false);
  if (!spec.inviteOnly && spec.historyPublicToSubscribers === false) throw badRequest('Invalid parameters');
  const settings: Record<string, GroupSettingValue> = {};
  for (const key of STREAM_GROUP_SETTINGS) {
    const given = spec.groupSettings[key];
    if (given !== undefined) {
      settings[key] = checkStreamGroupSetting(groups, validUsers, key, given);
      continue;
    }
    const dflt = STREAM_GROUP_SETTING_DEFAULTS[key];
    settings[key] = dflt === 'creator' ? (user ? { direct_members: [user.id], direct_subgroups: [] } : groups.systemGroupId('role:nobody')) : groups.systemGroupId(dflt as never);
  }
  if (spec.folderId !== undefined && spec.folderId !== null) await checkChannelFolderId(tx, svc.realmId, spec.folderId);
  if (spec.inviteOnly && !history && settings.can_create_topic_group !== groups.systemGroupId('role:everyone')) {
    throw badRequest("'can_create_topic_group' must be 'role:everyone' for private channels with protected history.");
  }
  return insertStream(tx, {
    realm_id: svc.realmId,
    name,
    description,
    rendered_description: await renderDescription(svc, tx, description),
    invite_only: spec.inviteOnly ? 1 : 0,
    is_web_public: spec.isWebPublic ? 1 : 0,
    history_public_to_subscribers: history ? 1 : 0,
    message_retention_days: retention,
    date_created: nowSeconds(),
    creator_id: user?.id ?? null,
    folder_id: spec.folderId ?? null,
    topics_policy: spec.topicsPolicy ?? 'inherit',
    is_default: spec.isDefault ? 1 : 0,
    group_settings_json: JSON.stringify(settings),
  });
}


/**
 * "announce": Notification Bot posts "@_**Creator|id** created a new channel
 * #**name**." to the organization's new_stream_announcements_stream_id
 * channel (topic "new channels"), when one is configured, as Zulip does;
 * private channels are not announced.
 */
export async function announceNewChannels(svc: Services, creator: UserRow, streams: StreamRow[]): Promise<void> {
  if (!streams.length) return;
  const realm = await realmById(svc.store.db, svc.realmId);
  const target = Number(realmSettings(realm.settings_json).new_stream_announcements_stream_id);
  if (!(target > 0)) return;
  const bot = await notificationBot(svc);
  // Private channels are not announced (their names are not public).
  for (const s of streams.filter((x) => !x.invite_only)) {
    const link = channelLinkSyntax(s);
    try {
      await sendMessage(svc, bot, {
        type: 'stream',
        to: String(target),
        topic: 'new channels',
        content: `${silentMention(creator)} created a new channel ${link}.`,
        clientName: 'Internal',
      });
    } catch (e) {
      svc.log.warn({ err: e }, 'channel announcement failed');
    }
  }
}

/** Adds subscriptions (in the caller's transaction); returns the (user, channel) pairs newly subscribed and already subscribed. */
export async function addSubscriptionsTx(
  tx: Tx,
  streams: StreamRow[],
  users: readonly UserRow[],
  colorOverride?: Map<number, string>,
): Promise<{ added: Array<[UserRow, StreamRow]>; already: Array<[UserRow, StreamRow]> }> {
  const added: Array<[UserRow, StreamRow]> = [];
  const already: Array<[UserRow, StreamRow]> = [];
  for (const u of users) {
    const rows = await subscriptionRowsOfUser(tx, u.id);
    const colors = await usedColors(tx, u.id);
    for (const s of streams) {
      const row = rows.find((r) => r.stream_id === s.id);
      if (row?.active) {
        already.push([u, s]);
        continue;
      }
      const color = colorOverride?.get(s.id) ?? row?.color ?? pickColor(colors.values(), s.id);
      colors.set(s.id, color);
      await activateSubscription(tx, u.id, s.id, color);
      added.push([u, s]);
    }
  }
  return { added, already };
}

/**
 * Events after subscriptions were added: stream create for users who could
 * not see a channel before (including everyone who may see a new channel),
 * subscription add to each new subscriber, peer_add to the others who see it.
 */
export async function sendSubscriptionAddEvents(
  svc: Services,
  before: ChannelContext | null,
  added: Array<[UserRow, StreamRow]>,
  created: StreamRow[],
): Promise<void> {
  const ctx = await loadChannelContext(svc, svc.store.db);
  const createdIds = new Set(created.map((s) => s.id));
  const streamIds = [...new Set([...added.map(([, s]) => s.id), ...createdIds])];
  for (const sid of streamIds) {
    const stream = ctx.streams.find((s) => s.id === sid)!;
    const subs = new Set(ctx.subscribers.get(sid) ?? []);
    const viewersNow = metadataViewers(stream, ctx.users, subs, ctx.groups);
    let viewersBefore: Set<number>;
    if (createdIds.has(sid) || !before) viewersBefore = new Set();
    else viewersBefore = new Set(metadataViewers(stream, before.users, new Set(before.subscribers.get(sid) ?? []), before.groups));
    const gained = viewersNow.filter((id) => !viewersBefore.has(id));
    if (gained.length) svc.bus.send({ type: 'stream', op: 'create', streams: [formatStream(stream, ctx)] }, gained, archivedStreamMeta(stream));
  }
  const perUser = new Map<number, StreamRow[]>();
  for (const [u, s] of added) perUser.set(u.id, [...(perUser.get(u.id) ?? []), s]);
  for (const [uid, streams] of perUser) {
    const rows = await subscriptionRowsOfUser(svc.store.db, uid);
    const fresh = streams.map((s) => ctx.streams.find((x) => x.id === s.id)!);
    const subs = fresh.map((s) => ({ ...formatSubscription(s, rows.find((r) => r.stream_id === s.id)!, ctx), subscribers: ctx.subscribers.get(s.id) ?? [] }));
    svc.bus.send({ type: 'subscription', op: 'add', subscriptions: subs }, [uid], archivedSubscriptionsMeta(fresh));
  }
  const perStream = new Map<number, number[]>();
  for (const [u, s] of added) perStream.set(s.id, [...(perStream.get(s.id) ?? []), u.id]);
  for (const [sid, userIds] of perStream) {
    const stream = ctx.streams.find((s) => s.id === sid)!;
    const viewers = metadataViewers(stream, ctx.users, new Set(ctx.subscribers.get(sid) ?? []), ctx.groups).filter((id) => !userIds.includes(id));
    svc.bus.send({ type: 'subscription', op: 'peer_add', stream_ids: [sid], user_ids: userIds }, viewers, archivedSubscriptionsMeta([stream]));
  }
}

export interface CreateChannelInput extends NewChannelSpec {
  subscribers: number[];
  announce: boolean;
}

/** POST /channels/create. */
export async function createChannel(svc: Services, user: UserRow, input: CreateChannelInput): Promise<{ id: number }> {
  const before = await loadChannelContext(svc, svc.store.db);
  const result = await transaction(svc.store, async (tx) => {
    // The lock subscribing takes (which creates channels too): one name, one channel, whichever way it is asked for.
    await lockSubscriptionsOf(svc.store, tx);
    const groups = await cachedGroups(svc, tx);
    await checkCanCreate(svc, tx, user, [input], groups);
    const validUsers = await cachedActiveUserIdSet(svc, tx);
    const users: UserRow[] = [];
    for (const id of [...new Set(input.subscribers)]) {
      const u = before.users.find((x) => x.id === id && x.is_active);
      if (!u) throw badRequest('No such user');
      users.push(u);
    }
    const stream = await insertChannel(svc, tx, user, input, groups, validUsers);
    const { added } = await addSubscriptionsTx(tx, [stream], users);
    return { stream, added };
  });
  await sendSubscriptionAddEvents(svc, before, result.added, [result.stream]);
  if (input.isDefault) await sendDefaultStreamsEvent(svc);
  if (input.announce) await announceNewChannels(svc, user, [result.stream]);
  await channelsCreatedNotices(svc, user, [result.stream]);
  return { id: result.stream.id };
}
