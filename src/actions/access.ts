/**
 * The access gate. Who may see and use a channel (metadata access, content
 * access, permission to post), who may read or act on a message, and who
 * hears about a change to one (Zulip's access_message and
 * event_recipient_ids_for_action_on_messages). One place for these rules,
 * used by channel, subscription, message, narrow, reaction and typing code.
 * Functions that need the group graph take it as an argument when the
 * caller already has it, so a request loads it once.
 */
import { cachedGroups, cachedStreams, cachedSubscribedChannels, cachedSubscribers, cachedUsers } from './cache.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { memoByRow, parseJsonObject } from '../lib/util.ts';
import type { StreamRow } from '../store/streams.ts';
import { HISTORICAL_FLAGS, messageById, messageHolders, RECIPIENT, topicHasMessages, userFlags, type MessageRow } from '../store/messages.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import { Groups, parseStoredSetting, type GroupSettingValue } from './group-settings.ts';

export const STREAM_GROUP_SETTINGS = [
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_create_topic_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_remove_subscribers_group',
  'can_resolve_topics_group',
  'can_send_message_group',
  'can_subscribe_group',
] as const;
export type StreamGroupSetting = (typeof STREAM_GROUP_SETTINGS)[number];

export function streamGroupSetting(stream: StreamRow, name: StreamGroupSetting): GroupSettingValue | undefined {
  return parseStoredSetting(groupSettingsOf(stream)[name]);
}

/**
 * A channel's stored group settings, parsed once per row object (every
 * send checks can_send_message_group). Shared, so frozen all the way down.
 */
const groupSettingsOf = memoByRow((stream: StreamRow) => stream.group_settings_json, (json) => deepFreeze(parseJsonObject(json)));

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function streamDoesNotExistById(id: number): ApiError {
  return new ApiError(`Channel with ID '${id}' does not exist`, { code: 'STREAM_DOES_NOT_EXIST', extra: { stream_id: id } });
}

export function streamDoesNotExistByName(name: string): ApiError {
  return new ApiError(`Channel '${name}' does not exist`, { code: 'STREAM_DOES_NOT_EXIST', extra: { stream: name } });
}

export interface StreamAccess {
  stream: StreamRow;
  subscribed: boolean;
  /** May see that the channel exists and its settings. */
  metadata: boolean;
  /** May read its messages (subject to history_public_to_subscribers for old ones). */
  content: boolean;
}

/**
 * Whether spectators (logged-out visitors, where the organization allows
 * them) may read a channel: a web-public one (Zulip's
 * get_web_public_streams_queryset, which checks it is not private too).
 */
export function readableBySpectators(stream: StreamRow): boolean {
  return !!stream.is_web_public && !stream.invite_only;
}

/** Computes a user's access to a channel. */
export function streamAccess(user: UserRow, stream: StreamRow, subscribed: boolean, groups: Groups): StreamAccess {
  let metadata: boolean;
  let content: boolean;
  if (subscribed) {
    metadata = content = true;
  } else if (stream.is_web_public || !stream.invite_only) {
    // Public (and web-public) channels: every non-guest; guests only web-public metadata/content.
    const guest = user.role === ROLE.GUEST;
    metadata = content = !guest || !!stream.is_web_public;
  } else {
    // Private: administrators and channel administrators see metadata;
    // members of can_add_subscribers/can_subscribe groups may read content.
    const admin = user.role <= ROLE.ADMINISTRATOR;
    const chanAdmin = groups.allows(user, streamGroupSetting(stream, 'can_administer_channel_group'));
    const canJoin =
      groups.allows(user, streamGroupSetting(stream, 'can_subscribe_group')) ||
      groups.allows(user, streamGroupSetting(stream, 'can_add_subscribers_group'));
    metadata = admin || chanAdmin || canJoin;
    content = canJoin;
  }
  return { stream, subscribed, metadata, content };
}

/** Whether the user has an active subscription to the channel. */
export async function isSubscribed(svc: Services, db: Tx, userId: number, streamId: number): Promise<boolean> {
  return (await cachedSubscribedChannels(svc, userId, db)).has(streamId);
}

/** Loads a channel by ID the user may see; unknown or invisible channels are "does not exist". */
export async function accessStreamById(svc: Services, db: Tx, user: UserRow, streamId: number, groups?: Groups): Promise<StreamAccess> {
  const stream = (await cachedStreams(svc, db)).byId.get(streamId);
  if (!stream) throw new ApiError('Invalid channel ID', { code: 'BAD_REQUEST' });
  const g = groups ?? (await cachedGroups(svc, db));
  const access = streamAccess(user, stream, await isSubscribed(svc, db, user.id, stream.id), g);
  if (!access.metadata) throw new ApiError('Invalid channel ID', { code: 'BAD_REQUEST' });
  return access;
}

export async function accessStreamByName(svc: Services, db: Tx, user: UserRow, name: string, groups?: Groups): Promise<StreamAccess> {
  const stream = (await cachedStreams(svc, db)).byName.get(name.toLowerCase());
  if (!stream) throw new ApiError(`Invalid channel name '${name}'`, { code: 'BAD_REQUEST' });
  const g = groups ?? (await cachedGroups(svc, db));
  const access = streamAccess(user, stream, await isSubscribed(svc, db, user.id, stream.id), g);
  if (!access.metadata) throw new ApiError(`Invalid channel name '${name}'`, { code: 'BAD_REQUEST' });
  return access;
}

/**
 * Whether the user may post to the channel: in can_send_message_group, and
 * for private channels (or guests) subscribed. Bots act with their owner's
 * rights for private channels only when subscribed themselves, as in Zulip.
 */
export function canPost(user: UserRow, access: StreamAccess, groups: Groups): boolean {
  if (access.stream.is_archived) return false;
  // System bots (Notification Bot) post wherever the server sends its notices.
  if (user.is_system_bot) return true;
  if (!groups.allows(user, streamGroupSetting(access.stream, 'can_send_message_group'))) return false;
  if (access.stream.invite_only || user.role === ROLE.GUEST) return access.subscribed;
  return true;
}

/**
 * Zulip's check_for_can_create_topic_group_violation: starting a topic the
 * channel does not have yet (by sending or by moving messages) takes the
 * channel's can_create_topic_group; a bot may when its owner may, system
 * bots always. With the default (role:everyone) no query is made.
 */
export async function checkCanCreateTopic(svc: Services, db: Tx, user: UserRow, stream: StreamRow, topic: string, groups: Groups): Promise<void> {
  if (user.is_system_bot) return;
  const setting = streamGroupSetting(stream, 'can_create_topic_group');
  if (setting === groups.systemGroupId('role:everyone')) return;
  if (groups.allows(user, setting) || (await topicHasMessages(db, stream.id, topic))) return;
  const owner = user.is_bot && user.bot_owner_id !== null ? (await cachedUsers(svc, db)).byId.get(user.bot_owner_id) : undefined;
  if (owner && groups.allows(owner, setting)) return;
  throw badRequest('You do not have permission to create new topics in this channel.');
}

/** Realm administrators, and members of the channel's can_administer_channel_group. */
export function canAdministerChannel(user: UserRow, stream: StreamRow, groups: Groups): boolean {
  if (!user.is_active) return false;
  return user.role <= ROLE.ADMINISTRATOR || groups.allows(user, streamGroupSetting(stream, 'can_administer_channel_group'));
}

/**
 * Whether the user may subscribe other users: channel administrators (with
 * metadata access), members of the channel's can_add_subscribers_group, and,
 * for public channels they can read, members of the organization's
 * can_add_subscribers_group (`realmCanAdd`).
 */
export function canAddSubscribers(user: UserRow, access: StreamAccess, groups: Groups, realmCanAdd: GroupSettingValue): boolean {
  const stream = access.stream;
  if (access.metadata && canAdministerChannel(user, stream, groups)) return true;
  if (groups.allows(user, streamGroupSetting(stream, 'can_add_subscribers_group'))) return true;
  return !stream.invite_only && access.content && groups.allows(user, realmCanAdd);
}

/** Whether the user may subscribe themselves. */
export function canSubscribeSelf(user: UserRow, access: StreamAccess, groups: Groups, realmCanAdd: GroupSettingValue): boolean {
  const stream = access.stream;
  if (access.subscribed) return true;
  if (!stream.invite_only && (user.role !== ROLE.GUEST || stream.is_web_public)) return true;
  if (groups.allows(user, streamGroupSetting(stream, 'can_subscribe_group'))) return true;
  return canAddSubscribers(user, access, groups, realmCanAdd);
}

/** Whether the user may unsubscribe other users. */
export function canRemoveSubscribers(user: UserRow, access: StreamAccess, groups: Groups): boolean {
  if (!access.metadata) return false;
  if (canAdministerChannel(user, access.stream, groups)) return true;
  return groups.allows(user, streamGroupSetting(access.stream, 'can_remove_subscribers_group'));
}

/**
 * Whether the user may read messages sent before they subscribed (or when
 * not subscribed at all): public channels always; private channels only
 * with content access and history_public_to_subscribers. Without it, a
 * subscriber sees only the messages they received (their user_messages rows).
 */
export function canReadFullHistory(access: StreamAccess): boolean {
  if (!access.content) return false;
  if (!access.stream.invite_only) return true;
  return !!access.stream.history_public_to_subscribers;
}

/** IDs of the active users (among `users`) with metadata access, given the channel's subscriber set. */
export function metadataViewers(stream: StreamRow, users: readonly UserRow[], subscribers: Set<number>, groups: Groups): number[] {
  return users.filter((u) => u.is_active && streamAccess(u, stream, subscribers.has(u.id), groups).metadata).map((u) => u.id);
}

// ---------------------------------------------------------------------------
// Messages

/** Whether the user may read the channel's full history (Zulip's can_access_stream_history). */
export function canAccessHistory(user: UserRow, stream: StreamRow, subscribed: boolean, groups: Groups): boolean {
  if (stream.is_web_public) return true;
  if (!stream.invite_only) return user.role !== ROLE.GUEST || subscribed;
  if (!stream.history_public_to_subscribers) return false;
  return streamAccess(user, stream, subscribed, groups).content;
}

/**
 * Whether the user may see the message; returns its conversation for the
 * `with` operator, and the flags the user has on it.
 */
export async function accessMessage(svc: Services, db: Tx, user: UserRow, id: number, groups?: Groups): Promise<{ row: MessageRow; flags: number } | null> {
  const row = await messageById(db, svc.realmId, id);
  if (!row) return null;
  const own = (await userFlags(db, user.id, [id])).get(id);
  if (own !== undefined) return { row, flags: own };
  if (row.recipient_type !== RECIPIENT.STREAM) return null;
  const stream = (await cachedStreams(svc, db)).byId.get(row.recipient_id);
  if (!stream) return null;
  const subscribed = await isSubscribed(svc, db, user.id, stream.id);
  return canAccessHistory(user, stream, subscribed, groups ?? (await cachedGroups(svc, db))) ? { row, flags: HISTORICAL_FLAGS } : null;
}

/**
 * The message, when the user may act on it (react, delete): they can read
 * it, and for channel messages the channel is not archived and they have
 * content access to it now (Zulip's access_message with is_modifying_message).
 */
export async function accessMessageToModify(
  svc: Services,
  db: Tx,
  user: UserRow,
  id: number,
  groups?: Groups,
): Promise<{ row: MessageRow; hasRow: boolean } | null> {
  const a = await accessMessage(svc, db, user, id, groups);
  if (!a) return null;
  const hasRow = (await userFlags(db, user.id, [id])).has(id);
  if (a.row.recipient_type !== RECIPIENT.STREAM) return { row: a.row, hasRow };
  const stream = (await cachedStreams(svc, db)).byId.get(a.row.recipient_id);
  if (!stream || stream.is_archived) return null;
  const subscribed = await isSubscribed(svc, db, user.id, stream.id);
  if (!streamAccess(user, stream, subscribed, groups ?? (await cachedGroups(svc, db))).content) return null;
  return { row: a.row, hasRow };
}

/**
 * Who hears about a change to a message: holders of its user_messages rows,
 * plus, for channels whose history subscribers can read, the subscribers.
 */
export async function messageEventRecipients(svc: Services, db: Tx, row: MessageRow): Promise<number[]> {
  const users = new Set((await messageHolders(db, [row.id])).get(row.id) ?? []);
  if (row.recipient_type === RECIPIENT.STREAM) {
    const stream = (await cachedStreams(svc, db)).byId.get(row.recipient_id);
    if (stream && (!stream.invite_only || stream.history_public_to_subscribers)) {
      for (const s of (await cachedSubscribers(svc, stream.id, db)).list) users.add(s.user_id);
    }
  }
  return [...users];
}

export function invalidMessage(): ApiError {
  return badRequest('Invalid message(s)');
}
