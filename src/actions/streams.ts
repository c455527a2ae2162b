/**
 * Channels: creation (POST /channels/create and the legacy subscribe path),
 * reading (GET /streams…), updating (PATCH /streams/{id}), archiving, and
 * default channels; with the stream/subscription events they cause.
 */
import { checkChannelFolderId } from './channel-folders.ts';
import { NOTIFICATION_BOT_EMAIL, systemBot } from './system-bots.ts';
import { sendMessage } from './messages.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { transaction } from '../store/db.ts';
import { ApiError, badRequest, requireOwner } from '../lib/errors.ts';
import { codePointLength, nowSeconds, parseJsonObject } from '../lib/util.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { realmById } from '../store/realm.ts';
import { allUsers, ROLE, type UserRow } from '../store/users.ts';
import {
  activateSubscription,
  allStreams,
  channelHasNamedTopics,
  insertStream,
  streamById,
  streamByName,
  subscriptionRowsOfUser,
  updateStream,
  usedColors,
  type StreamPatch,
  type StreamRow,
} from '../store/streams.ts';
import type { ZulipEvent } from '../events/types.ts';
import type { QueueFilter } from '../events/queue.ts';
import { Groups, realmGroupSetting, type GroupSettingValue } from './group-settings.ts';
import {
  accessStreamById,
  accessStreamByName,
  canAdministerChannel,
  metadataViewers,
  streamAccess,
  streamGroupSetting,
  STREAM_GROUP_SETTINGS,
  type StreamGroupSetting,
} from './channel-access.ts';
import {
  formatStream,
  formatSubscription,
  loadChannelContext,
  pickColor,
  renderDescription,
  STREAM_GROUP_SETTING_DEFAULTS,
  type ChannelContext,
} from './streams-format.ts';

export const TOPICS_POLICIES = ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'] as const;
export type TopicsPolicy = (typeof TOPICS_POLICIES)[number];

// ---------------------------------------------------------------------------
// Validation helpers

/** Zulip's channel name rules. */
export function checkStreamName(svc: Services, name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw badRequest("Channel name can't be empty!");
  if (codePointLength(trimmed) > svc.config.maxStreamNameLength) {
    throw badRequest(`Channel name too long (limit: ${svc.config.maxStreamNameLength} characters).`);
  }
  let pos = 0;
  for (const ch of trimmed) {
    pos++;
    const cp = ch.codePointAt(0)!;
    // eslint-disable-next-line no-control-regex
    const nonChar = (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
    if (/[\u0000-\u001f\u007f-\u009f]/.test(ch) || (cp >= 0xd800 && cp <= 0xdfff) || nonChar) {
      throw badRequest(`Invalid character in channel name, at position ${pos}!`);
    }
  }
  return trimmed;
}

export function checkDescription(svc: Services, description: string): string {
  const text = description.replace(/\n/g, ' ');
  if (codePointLength(text) > svc.config.maxStreamDescriptionLength) {
    throw badRequest(`description is too long (limit: ${svc.config.maxStreamDescriptionLength} characters)`);
  }
  return text;
}

/** message_retention_days: a positive number of days, 'realm_default' (null) or 'unlimited' (-1). */
export function parseRetention(value: string | number): number | null {
  if (value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  if (typeof value === 'string' || !Number.isInteger(value) || value <= 0) {
    throw badRequest(`Bad value for 'message_retention_days': ${value}`);
  }
  return value;
}

function channelAlreadyExists(name: string): ApiError {
  return new ApiError(`Channel '${name}' already exists`, { code: 'CHANNEL_ALREADY_EXISTS' });
}

async function validUserIdSet(db: Tx, svc: Services): Promise<Set<number>> {
  return new Set((await allUsers(db, svc.realmId)).filter((u) => u.is_active).map((u) => u.id));
}

/** Checks a group-setting value sent for a channel setting and returns the stored form. */
export function checkStreamGroupSetting(groups: Groups, validUsers: Set<number>, name: string, value: GroupSettingValue): GroupSettingValue {
  const out = groups.validate(value, validUsers, name);
  const check = (id: number) => {
    const g = groups.byId.get(id);
    if (g?.is_system_group && g.name === 'role:internet') throw badRequest(`'${name}' setting cannot be set to 'role:internet' group.`);
  };
  if (typeof out === 'number') check(out);
  else out.direct_subgroups.forEach(check);
  return out;
}

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
export async function insertChannel(svc: Services, tx: Tx, user: UserRow | null, spec: NewChannelSpec, groups: Groups, validUsers: Set<number>): Promise<StreamRow> {
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
 * Zulip's Notification Bot: a system bot (listed in cross_realm_bots, not
 * among the organization's users), created on first use without events.
 */
export async function notificationBot(svc: Services): Promise<UserRow> {
  return systemBot(svc, NOTIFICATION_BOT_EMAIL, 'Notification Bot');
}

export { NOTIFICATION_BOT_EMAIL };

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
    const link = `#**${s.name}**`;
    try {
      await sendMessage(svc, bot, {
        type: 'stream',
        to: String(target),
        topic: 'new channels',
        content: `@_**${creator.full_name}|${creator.id}** created a new channel ${link}.`,
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
  users: UserRow[],
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
    if (gained.length) svc.bus.send({ type: 'stream', op: 'create', streams: [formatStream(stream, ctx)] }, gained);
  }
  const perUser = new Map<number, StreamRow[]>();
  for (const [u, s] of added) perUser.set(u.id, [...(perUser.get(u.id) ?? []), s]);
  for (const [uid, streams] of perUser) {
    const rows = await subscriptionRowsOfUser(svc.store.db, uid);
    const subs = streams.map((s) => {
      const fresh = ctx.streams.find((x) => x.id === s.id)!;
      return { ...formatSubscription(fresh, rows.find((r) => r.stream_id === s.id)!, ctx), subscribers: ctx.subscribers.get(s.id) ?? [] };
    });
    svc.bus.send({ type: 'subscription', op: 'add', subscriptions: subs }, [uid]);
  }
  const perStream = new Map<number, number[]>();
  for (const [u, s] of added) perStream.set(s.id, [...(perStream.get(s.id) ?? []), u.id]);
  for (const [sid, userIds] of perStream) {
    const stream = ctx.streams.find((s) => s.id === sid)!;
    const viewers = metadataViewers(stream, ctx.users, new Set(ctx.subscribers.get(sid) ?? []), ctx.groups).filter((id) => !userIds.includes(id));
    svc.bus.send({ type: 'subscription', op: 'peer_add', stream_ids: [sid], user_ids: userIds }, viewers);
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
    const groups = await Groups.load(tx, svc.realmId);
    await checkCanCreate(svc, tx, user, [input], groups);
    const validUsers = await validUserIdSet(tx, svc);
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
  return { id: result.stream.id };
}

// ---------------------------------------------------------------------------
// Reading

export interface GetStreamsFlags {
  include_public: boolean;
  include_web_public: boolean;
  include_subscribed: boolean;
  exclude_archived: boolean;
  include_all: boolean;
  include_all_active: boolean;
  include_default: boolean;
  include_owner_subscribed: boolean;
  include_can_access_content: boolean;
}

/** GET /streams. */
export async function getStreams(svc: Services, user: UserRow, f: GetStreamsFlags): Promise<Record<string, unknown>[]> {
  const ctx = await loadChannelContext(svc, svc.store.db);
  if (f.include_all_active && user.role > ROLE.ADMINISTRATOR) throw new ApiError('User not authorized for this query', { code: 'BAD_REQUEST' });
  const subscribedBy = (uid: number) => new Set(ctx.streams.filter((s) => (ctx.subscribers.get(s.id) ?? []).includes(uid)).map((s) => s.id));
  const mine = subscribedBy(user.id);
  const ownerSubs = f.include_owner_subscribed && user.is_bot && user.bot_owner_id ? subscribedBy(user.bot_owner_id) : new Set<number>();
  const out: Record<string, unknown>[] = [];
  for (const s of ctx.streams) {
    if (f.exclude_archived && s.is_archived) continue;
    const access = streamAccess(user, s, mine.has(s.id), ctx.groups);
    let include = false;
    if (f.include_all || f.include_all_active) include = access.metadata || (f.include_all_active && user.role <= ROLE.ADMINISTRATOR);
    if (f.include_public && !s.invite_only && user.role !== ROLE.GUEST) include = true;
    if (f.include_web_public && s.is_web_public) include = true;
    if (f.include_subscribed && mine.has(s.id)) include = true;
    if (f.include_default && s.is_default) include = true;
    if (f.include_can_access_content && access.content) include = true;
    if (ownerSubs.has(s.id) && access.metadata) include = true;
    if (include) out.push(formatStream(s, ctx));
  }
  return out;
}

export async function getStream(svc: Services, user: UserRow, streamId: number): Promise<Record<string, unknown>> {
  const ctx = await loadChannelContext(svc, svc.store.db);
  const access = await accessStreamById(svc, svc.store.db, user, streamId, ctx.groups);
  return formatStream(access.stream, ctx);
}

export async function getStreamId(svc: Services, user: UserRow, name: string): Promise<number> {
  const access = await accessStreamByName(svc, svc.store.db, user, name);
  return access.stream.id;
}

// ---------------------------------------------------------------------------
// Updating

export interface UpdateChannelInput {
  description?: string;
  new_name?: string;
  is_private?: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  is_default_stream?: boolean;
  message_retention_days?: string | number;
  is_archived?: boolean;
  folder_id?: number | null;
  topics_policy?: TopicsPolicy;
  groupSettings: Partial<Record<StreamGroupSetting, { new: GroupSettingValue; old?: GroupSettingValue }>>;
}

/** Settings whose change needs content access (others need metadata access), as Zulip. */
const CONTENT_ACCESS_SETTINGS = new Set<string>(['can_add_subscribers_group', 'can_subscribe_group']);

/** PATCH /streams/{stream_id}. */
export async function updateChannel(svc: Services, user: UserRow, streamId: number, input: UpdateChannelInput): Promise<void> {
  const before = await loadChannelContext(svc, svc.store.db);
  const events: Array<{ property: string; value: unknown; extra?: Record<string, unknown> }> = [];
  let defaultChanged = false;
  let unarchived = false;
  const stream = await transaction(svc.store, async (tx) => {
    const groups = await Groups.load(tx, svc.realmId);
    const stream = await streamById(tx, svc.realmId, streamId);
    if (!stream) throw badRequest('Invalid channel ID');
    const subscribed = (before.subscribers.get(stream.id) ?? []).includes(user.id);
    const access = streamAccess(user, stream, subscribed, groups);
    // Archived channels are visible to administrators for unarchiving.
    if (!access.metadata && !(stream.is_archived && user.role <= ROLE.ADMINISTRATOR)) throw badRequest('Invalid channel ID');
    if (!canAdministerChannel(user, stream, groups)) throw badRequest('You do not have permission to administer this channel.');
    if (stream.is_archived && input.is_archived !== false) throw badRequest('Channel is archived.');
    const patch: StreamPatch = {};
    if (input.is_archived === true && !stream.is_archived) throw badRequest('Use DELETE /streams/{stream_id} to archive a channel.');
    if (input.is_archived === false && stream.is_archived) {
      patch.is_archived = 0;
      unarchived = true;
    }
    if (input.new_name !== undefined) {
      const name = checkStreamName(svc, input.new_name);
      if (name === stream.name) throw badRequest('Channel already has that name!');
      const other = await streamByName(tx, svc.realmId, name);
      if (other && other.id !== stream.id) throw badRequest(`Channel name '${name}' is already taken.`);
      patch.name = name;
      events.push({ property: 'name', value: name });
    }
    if (input.description !== undefined) {
      const description = checkDescription(svc, input.description);
      patch.description = description;
      patch.rendered_description = await renderDescription(svc, tx, description);
      events.push({ property: 'description', value: description, extra: { rendered_description: patch.rendered_description } });
    }
    const privacyChange = input.is_private !== undefined || input.is_web_public !== undefined || input.history_public_to_subscribers !== undefined;
    if (privacyChange) {
      if (!access.content) throw badRequest('Invalid channel ID');
      const isPrivate = input.is_private ?? !!stream.invite_only;
      const isWebPublic = input.is_web_public ?? !!stream.is_web_public;
      const history =
        input.history_public_to_subscribers ?? (input.is_private !== undefined ? !input.is_private : !!stream.history_public_to_subscribers);
      if (isWebPublic && !history) throw badRequest('Invalid parameters');
      if (isWebPublic && isPrivate) throw badRequest('Invalid parameters');
      if (!isPrivate && !history) throw badRequest('Invalid parameters');
      if (isPrivate && (input.is_default_stream ?? !!stream.is_default)) throw badRequest('A default channel cannot be private.');
      if (input.is_web_public) {
        const realm = await realmById(tx, svc.realmId);
        if (!svc.config.webPublicStreamsEnabled || !realmSettings(realm.settings_json).enable_spectator_access) throw badRequest('Web-public channels are not enabled.');
        if (!groups.allows(user, realmGroupSetting(realm.settings_json, 'can_create_web_public_channel_group', groups))) throw badRequest('Insufficient permission');
      }
      if (isPrivate && !history) {
        const current = streamGroupSetting(stream, 'can_create_topic_group');
        const next = input.groupSettings.can_create_topic_group?.new ?? current;
        if (next !== groups.systemGroupId('role:everyone')) {
          throw badRequest("'can_create_topic_group' must be 'role:everyone' for private channels with protected history.");
        }
      }
      if (isPrivate !== !!stream.invite_only || isWebPublic !== !!stream.is_web_public || history !== !!stream.history_public_to_subscribers) {
        patch.invite_only = isPrivate ? 1 : 0;
        patch.is_web_public = isWebPublic ? 1 : 0;
        patch.history_public_to_subscribers = history ? 1 : 0;
        if (isPrivate !== !!stream.invite_only) {
          events.push({ property: 'invite_only', value: isPrivate, extra: { history_public_to_subscribers: history, is_web_public: isWebPublic } });
        }
        if (isWebPublic !== !!stream.is_web_public) {
          events.push({ property: 'is_web_public', value: isWebPublic, extra: { history_public_to_subscribers: history, invite_only: isPrivate } });
        }
        if (history !== !!stream.history_public_to_subscribers && isPrivate === !!stream.invite_only && isWebPublic === !!stream.is_web_public) {
          events.push({ property: 'history_public_to_subscribers', value: history });
        }
      }
    }
    if (input.is_default_stream !== undefined) {
      if (user.role > ROLE.ADMINISTRATOR) throw badRequest('Must be an organization administrator');
      const isPrivate = patch.invite_only !== undefined ? !!patch.invite_only : !!stream.invite_only;
      if (input.is_default_stream && isPrivate) throw badRequest('A default channel cannot be private.');
      if (!!stream.is_default !== input.is_default_stream) {
        patch.is_default = input.is_default_stream ? 1 : 0;
        defaultChanged = true;
      }
    }
    if (input.message_retention_days !== undefined) {
      if (user.role !== ROLE.OWNER) throw requireOwner();
      const days = parseRetention(input.message_retention_days);
      if (days !== stream.message_retention_days) {
        patch.message_retention_days = days;
        events.push({ property: 'message_retention_days', value: days });
      }
    }
    if (input.folder_id !== undefined && input.folder_id !== stream.folder_id) {
      if (input.folder_id !== null) await checkChannelFolderId(tx, svc.realmId, input.folder_id);
      patch.folder_id = input.folder_id;
      events.push({ property: 'folder_id', value: input.folder_id });
    }
    if (input.topics_policy !== undefined && input.topics_policy !== stream.topics_policy) {
      if (input.topics_policy === 'empty_topic_only' && (await channelHasNamedTopics(tx, stream.id))) {
        throw badRequest('To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.');
      }
      patch.topics_policy = input.topics_policy;
      events.push({ property: 'topics_policy', value: input.topics_policy });
    }
    const settingEntries = Object.entries(input.groupSettings) as Array<[StreamGroupSetting, { new: GroupSettingValue; old?: GroupSettingValue }]>;
    if (settingEntries.length) {
      const settings = parseJsonObject(stream.group_settings_json);
      const validUsers = await validUserIdSet(tx, svc);
      for (const [name, upd] of settingEntries) {
        if (CONTENT_ACCESS_SETTINGS.has(name) && !access.content) throw badRequest('Invalid channel ID');
        const current = streamGroupSetting(stream, name);
        if (upd.old !== undefined && !Groups.same(checkStreamGroupSetting(groups, validUsers, name, upd.old), current)) {
          throw badRequest("'old' value does not match the expected value.");
        }
        const next = checkStreamGroupSetting(groups, validUsers, name, upd.new);
        if (Groups.same(next, current)) continue;
        settings[name] = next;
        events.push({ property: name, value: next });
      }
      patch.group_settings_json = JSON.stringify(settings);
    }
    if (Object.keys(patch).length) await updateStream(tx, stream.id, patch);
    return stream;
  });
  const after = await loadChannelContext(svc, svc.store.db);
  const fresh = after.streams.find((s) => s.id === stream.id)!;
  const subsBefore = new Set(before.subscribers.get(stream.id) ?? []);
  const viewersBefore = new Set(stream.is_archived ? [] : metadataViewers(stream, before.users, subsBefore, before.groups));
  const viewersAfter = metadataViewers(fresh, after.users, new Set(after.subscribers.get(stream.id) ?? []), after.groups);
  const afterSet = new Set(viewersAfter);
  const lost = [...viewersBefore].filter((id) => !afterSet.has(id));
  const gained = viewersAfter.filter((id) => !viewersBefore.has(id));
  const kept = viewersAfter.filter((id) => viewersBefore.has(id));
  if (lost.length) svc.bus.send({ type: 'stream', op: 'delete', streams: [formatStream(stream, before)], stream_ids: [stream.id] }, lost);
  if (unarchived) {
    // Clients declaring archived_channels learn it by an update; others see the channel appear.
    const ev: ZulipEvent = { type: 'stream', op: 'update', stream_id: stream.id, name: fresh.name, property: 'is_archived', value: false };
    svc.bus.send({ ...ev, [FALLBACK]: { type: 'stream', op: 'create', streams: [formatStream(fresh, after)] } }, viewersAfter);
  } else if (gained.length) {
    svc.bus.send({ type: 'stream', op: 'create', streams: [formatStream(fresh, after)] }, gained);
  }
  const name = events.find((e) => e.property === 'name') ? stream.name : fresh.name;
  for (const e of events) {
    svc.bus.send({ type: 'stream', op: 'update', stream_id: stream.id, name: e.property === 'name' ? name : fresh.name, property: e.property, value: e.value, ...(e.extra ?? {}) }, unarchived ? viewersAfter : kept);
  }
  if (defaultChanged) await sendDefaultStreamsEvent(svc);
}

/** Key of an alternative event for clients without the archived_channels capability. */
export const FALLBACK = '__fallback_without_archived_channels';

/** Queue filter for stream events: archiving/unarchiving shapes by client capability. */
export const streamEventFilter: QueueFilter = (q, event) => {
  const fallback = event[FALLBACK] as ZulipEvent | undefined;
  if (!fallback) return event;
  if (q.opts.clientCapabilities.archived_channels) {
    const { [FALLBACK]: _drop, ...rest } = event;
    void _drop;
    return rest as ZulipEvent;
  }
  return fallback;
};

/** DELETE /streams/{stream_id}: archives the channel (subscriptions are kept, as Zulip 10+). */
export async function archiveChannel(svc: Services, user: UserRow, streamId: number): Promise<void> {
  const before = await loadChannelContext(svc, svc.store.db);
  const stream = await transaction(svc.store, async (tx) => {
    const groups = await Groups.load(tx, svc.realmId);
    const stream = await streamById(tx, svc.realmId, streamId);
    if (!stream) throw badRequest('Invalid channel ID');
    const access = streamAccess(user, stream, (before.subscribers.get(stream.id) ?? []).includes(user.id), groups);
    if (!access.metadata) throw badRequest('Invalid channel ID');
    if (!canAdministerChannel(user, stream, groups)) throw badRequest('You do not have permission to administer this channel.');
    if (stream.is_archived) throw badRequest('Channel is already deactivated');
    await updateStream(tx, stream.id, { is_archived: 1, is_default: 0 });
    return stream;
  });
  const viewers = metadataViewers(stream, before.users, new Set(before.subscribers.get(stream.id) ?? []), before.groups);
  const archived = { ...stream, is_archived: 1, is_default: 0 };
  svc.bus.send(
    {
      type: 'stream',
      op: 'update',
      stream_id: stream.id,
      name: stream.name,
      property: 'is_archived',
      value: true,
      [FALLBACK]: { type: 'stream', op: 'delete', streams: [formatStream(archived, before)], stream_ids: [stream.id] },
    },
    viewers,
  );
  if (stream.is_default) await sendDefaultStreamsEvent(svc);
}

// ---------------------------------------------------------------------------
// Default channels

export async function defaultStreamIds(svc: Services, db: Tx): Promise<number[]> {
  return (await allStreams(db, svc.realmId)).filter((s) => s.is_default && !s.is_archived).map((s) => s.id);
}

export async function sendDefaultStreamsEvent(svc: Services): Promise<void> {
  const ctx = await loadChannelContext(svc, svc.store.db);
  svc.bus.send(
    { type: 'default_streams', default_streams: await defaultStreamIds(svc, svc.store.db) },
    ctx.users.filter((u) => u.is_active).map((u) => u.id),
  );
}

/** POST/DELETE /default_streams. */
export async function setDefaultStream(svc: Services, user: UserRow, streamId: number, isDefault: boolean): Promise<void> {
  if (user.role > ROLE.ADMINISTRATOR) throw new ApiError('Must be an organization administrator', { code: 'UNAUTHORIZED_PRINCIPAL' });
  const changed = await transaction(svc.store, async (tx) => {
    const access = await accessStreamById(svc, tx, user, streamId);
    if (isDefault && access.stream.invite_only) throw badRequest('Private channels cannot be made default.');
    if (isDefault && access.stream.is_archived) throw badRequest('Archived channels cannot be made default.');
    if (!!access.stream.is_default === isDefault) return false;
    await updateStream(tx, streamId, { is_default: isDefault ? 1 : 0 });
    return true;
  });
  if (changed) await sendDefaultStreamsEvent(svc);
}
