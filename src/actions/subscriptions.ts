/**
 * Subscriptions: subscribing (legacy POST /users/me/subscriptions, which also
 * creates missing channels), unsubscribing, listing, subscriber lists, and
 * personal subscription settings; with their events.
 */
import { channelsCreatedNotices } from './channel-notices.ts';
import { lockSubscriptionsOf } from '../store/locks.ts';
import { cachedGroups } from './cache.ts';
import type { Services } from '../services.ts';
import { transaction, type Tx } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import { nowSeconds } from '../lib/util.ts';
import { channelLinkSyntax } from '../lib/message-url.ts';
import { realmById } from '../store/realm.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import {
  deactivateSubscription,
  recentlyActiveUserIds,
  streamByName,
  streamById,
  subscriptionRow,
  subscriptionRowsOfUser,
  updateSubscription,
  type StreamRow,
  type SubscriptionPatch,
} from '../store/streams.ts';
import { Groups, realmGroupSetting, type GroupSettingValue } from './group-settings.ts';
import { accessStreamById, canAddSubscribers, canRemoveSubscribers, canSubscribeSelf, metadataViewers, readableBySpectators, streamAccess, type StreamGroupSetting } from './access.ts';
import { formatStream, formatSubscription, loadChannelContext, STREAM_ASSIGNMENT_COLORS, subscriptionPropertyValue, SUBSCRIPTION_PROPERTIES, type ChannelContext, type SubscriptionProperty } from './streams-format.ts';
import { checkStreamName, type TopicsPolicy } from './streams.ts';
import { addSubscriptionsTx, announceNewChannels, checkCanCreate, insertChannel, sendSubscriptionAddEvents, type NewChannelSpec } from './streams-create.ts';
import { sendDefaultStreamsEvent } from './streams-default.ts';
import { archivedStreamMeta, archivedSubscriptionsMeta } from './streams-archive.ts';
import { notificationBot } from './system-bots.ts';
import { sendMessage } from './messages.ts';
import { canAccessUser, trackAccessChanges } from './user-access.ts';
import { givenEmailNames } from './users-format.ts';

export type IncludeSubscribers = boolean | 'partial';

/** Channels with fewer subscribers than this always get full lists with include_subscribers=partial. */
export const PARTIAL_SUBSCRIBERS_THRESHOLD = 250;
const DAY = 86400;

/**
 * Subscriber fields for one channel: `subscribers` in full, or for large
 * channels with 'partial', `partial_subscribers`: every bot and every user
 * active in the last 14 days (by presence or a sent message).
 */
function subscriberFields(ctx: ChannelContext, streamId: number, include: IncludeSubscribers, recent: Set<number> | null): Record<string, unknown> {
  if (include === false) return {};
  const subs = ctx.subscribers.get(streamId) ?? [];
  if (include === true || subs.length < PARTIAL_SUBSCRIBERS_THRESHOLD) return { subscribers: subs };
  const bots = new Set(ctx.users.filter((u) => u.is_bot).map((u) => u.id));
  return { partial_subscribers: subs.filter((id) => bots.has(id) || recent?.has(id)) };
}

export interface SubscriptionState {
  subscriptions: Record<string, unknown>[];
  unsubscribed: Record<string, unknown>[];
  never_subscribed: Record<string, unknown>[];
}

/** The user's subscriptions, former subscriptions and never-subscribed visible channels. */
export async function subscriptionState(
  svc: Services,
  user: UserRow,
  include: IncludeSubscribers,
  opts: { archivedChannels: boolean } = { archivedChannels: true },
): Promise<SubscriptionState & { ctx: ChannelContext }> {
  const ctx = await loadChannelContext(svc, svc.store.db);
  const rows = await subscriptionRowsOfUser(svc.store.db, user.id);
  const recent = include === 'partial' ? await recentlyActiveUserIds(svc.store.db, svc.realmId, nowSeconds() - 14 * DAY) : null;
  const byStream = new Map(rows.map((r) => [r.stream_id, r]));
  const out: SubscriptionState = { subscriptions: [], unsubscribed: [], never_subscribed: [] };
  for (const s of ctx.streams) {
    if (s.is_archived && !opts.archivedChannels) continue;
    const row = byStream.get(s.id);
    const access = streamAccess(user, s, !!row?.active, ctx.groups);
    if (row?.active) {
      out.subscriptions.push({ ...formatSubscription(s, row, ctx), ...subscriberFields(ctx, s.id, include, recent) });
    } else if (!access.metadata) {
      continue;
    } else if (row) {
      out.unsubscribed.push({ ...formatSubscription(s, row, ctx), ...subscriberFields(ctx, s.id, include, recent) });
    } else {
      out.never_subscribed.push({ ...formatStream(s, ctx), ...subscriberFields(ctx, s.id, include, recent) });
    }
  }
  return { ...out, ctx };
}

/**
 * A spectator's subscriptions (Zulip's get_web_public_subs): the web-public
 * channels, each as a new subscription would be: colors in turn, nothing
 * muted or pinned, every notification on.
 */
export async function spectatorSubscriptions(svc: Services, opts: { archivedChannels: boolean }): Promise<Record<string, unknown>[]> {
  const ctx = await loadChannelContext(svc, svc.store.db);
  const channels = ctx.streams.filter((s) => readableBySpectators(s) && (opts.archivedChannels || !s.is_archived));
  return channels.map((s, i) => ({
    ...formatStream(s, ctx),
    color: STREAM_ASSIGNMENT_COLORS[i % STREAM_ASSIGNMENT_COLORS.length],
    is_muted: false,
    in_home_view: true,
    pin_to_top: false,
    desktop_notifications: true,
    audible_notifications: true,
    push_notifications: true,
    email_notifications: true,
    wildcard_mentions_notify: true,
  }));
}

/** GET /users/me/subscriptions. */
export async function listSubscriptions(svc: Services, user: UserRow, include: IncludeSubscribers): Promise<Record<string, unknown>[]> {
  return (await subscriptionState(svc, user, include)).subscriptions;
}

// ---------------------------------------------------------------------------
// Subscribing

export interface SubscribeInput {
  subscriptions: Array<{ name: string; description?: string; color?: string }>;
  principals: Array<string | number>;
  authorizationErrorsFatal: boolean;
  announce: boolean;
  /** Notification Bot tells users someone else subscribed them (default true). */
  sendNewSubscriptionMessages?: boolean;
  inviteOnly: boolean;
  isWebPublic: boolean;
  isDefault: boolean;
  historyPublicToSubscribers: boolean | null;
  messageRetentionDays?: string | number;
  topicsPolicy?: TopicsPolicy;
  folderId?: number | null;
  groupSettings: Partial<Record<StreamGroupSetting, GroupSettingValue>>;
}

/**
 * Resolves principals (emails or user IDs) to active users, as Zulip ("No
 * such user"); an email names a user as in GET /users/{email} (a dummy
 * address, or a real one the acting user may see).
 */
export function resolvePrincipals(svc: Services, actor: UserRow, users: readonly UserRow[], principals: Array<string | number>): UserRow[] {
  const out = new Map<number, UserRow>();
  for (const p of principals) {
    const u = typeof p === 'number' ? users.find((x) => x.id === p) : users.find((x) => givenEmailNames(svc.config, actor, x, p));
    if (!u || !u.is_active) throw badRequest('No such user');
    out.set(u.id, u);
  }
  return [...out.values()];
}

/** POST /users/me/subscriptions. */
export async function subscribe(svc: Services, user: UserRow, input: SubscribeInput): Promise<Record<string, unknown>> {
  const before = await loadChannelContext(svc, svc.store.db);
  const targets = input.principals.length ? resolvePrincipals(svc, user, before.users, input.principals) : [user];
  const others = targets.some((t) => t.id !== user.id);
  if (others && user.role === ROLE.GUEST) throw badRequest('Insufficient permission');
  const announceAccess = await trackChannelsAccess(svc, before, targets, input.subscriptions.map((i) => i.name));
  const result = await transaction(svc.store, async (tx) => {
    await lockSubscriptionsOf(svc.store, tx);
    const groups = await cachedGroups(svc, tx);
    const realm = await realmById(tx, svc.realmId);
    const realmCanAdd = realmGroupSetting(realm.settings_json, 'can_add_subscribers_group', groups);
    const existing: StreamRow[] = [];
    const missing: NewChannelSpec[] = [];
    const colorByName = new Map<string, string>();
    const seen = new Set<string>();
    for (const item of input.subscriptions) {
      const name = checkStreamName(svc, item.name);
      if (seen.has(name.toLowerCase())) continue;
      seen.add(name.toLowerCase());
      if (item.color) colorByName.set(name.toLowerCase(), item.color);
      const s = await streamByName(tx, svc.realmId, name);
      if (s) existing.push(s);
      else
        missing.push({
          name,
          description: item.description,
          inviteOnly: input.inviteOnly,
          isWebPublic: input.isWebPublic,
          historyPublicToSubscribers: input.historyPublicToSubscribers,
          messageRetentionDays: input.messageRetentionDays,
          topicsPolicy: input.topicsPolicy,
          folderId: input.folderId,
          groupSettings: input.groupSettings,
          isDefault: input.isDefault,
        });
    }
    if (missing.length) await checkCanCreate(svc, tx, user, missing, groups);
    const authorized: StreamRow[] = [];
    const unauthorized: StreamRow[] = [];
    for (const s of existing) {
      const subscribed = (before.subscribers.get(s.id) ?? []).includes(user.id);
      const access = streamAccess(user, s, subscribed, groups);
      // Archived channels too, by the same rules (feature level 362).
      const ok = others ? canAddSubscribers(user, access, groups, realmCanAdd) : canSubscribeSelf(user, access, groups, realmCanAdd);
      if (ok) authorized.push(s);
      else if (others && access.metadata) throw badRequest('Insufficient permission');
      else unauthorized.push(s);
    }
    if (unauthorized.length && input.authorizationErrorsFatal) throw badRequest(`Unable to access channel (${unauthorized[0].name}).`);
    const validUsers = new Set(before.users.filter((u) => u.is_active).map((u) => u.id));
    const created: StreamRow[] = [];
    for (const spec of missing) created.push(await insertChannel(svc, tx, user, spec, groups, validUsers));
    const streams = [...authorized, ...created];
    const colors = new Map<number, string>();
    for (const s of streams) {
      const c = colorByName.get(s.name.toLowerCase());
      if (c) colors.set(s.id, c);
    }
    const { added, already } = await addSubscriptionsTx(tx, streams, targets, colors);
    return { added, already, created, unauthorized };
  });
  await sendSubscriptionAddEvents(svc, before, result.added, result.created);
  await announceAccess();
  if (input.isDefault && result.created.length) await sendDefaultStreamsEvent(svc);
  if (input.announce && result.created.length) await announceNewChannels(svc, user, result.created);
  const group = (pairs: Array<[UserRow, StreamRow]>) => {
    const out: Record<string, string[]> = {};
    for (const [u, s] of pairs) (out[String(u.id)] ??= []).push(s.name);
    return out;
  };
  const body: Record<string, unknown> = { subscribed: group(result.added), already_subscribed: group(result.already) };
  if (!input.authorizationErrorsFatal) body.unauthorized = result.unauthorized.map((s) => s.name);
  if (input.sendNewSubscriptionMessages !== false) {
    // Zulip's MAX_BULK_NEW_SUBSCRIPTION_MESSAGES: no messages when too many users were subscribed at once.
    const subscribedUsers = new Set(result.added.map(([u]) => u.id));
    body.new_subscription_messages_sent = subscribedUsers.size <= MAX_BULK_NEW_SUBSCRIPTION_MESSAGES;
    if (body.new_subscription_messages_sent) await sendNewSubscriptionMessages(svc, user, result.added, result.created);
  }
  await channelsCreatedNotices(svc, user, result.created);
  return body;
}

/**
 * Restricted guests among the users joining or leaving these channels and
 * among their subscribers may gain or lose access to users (see
 * trackAccessChanges); the returned function tells them after the change.
 */
function trackChannelsAccess(svc: Services, before: ChannelContext, targets: UserRow[], names: string[]): Promise<() => Promise<void>> {
  const named = new Set(names.map((n) => n.trim().toLowerCase()));
  const peers = new Set(before.streams.filter((s) => named.has(s.name.toLowerCase())).flatMap((s) => before.subscribers.get(s.id) ?? []));
  return trackAccessChanges(svc, [...targets, ...before.users.filter((u) => peers.has(u.id))]);
}

export const MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = 100;

/**
 * Zulip's send_messages_for_new_subscribers: Notification Bot tells each
 * human user someone else subscribed which existing channels they were
 * subscribed to (channels created by the request are not mentioned).
 */
async function sendNewSubscriptionMessages(svc: Services, actor: UserRow, added: Array<[UserRow, StreamRow]>, created: StreamRow[]): Promise<void> {
  const createdIds = new Set(created.map((s) => s.id));
  const perUser = new Map<number, { user: UserRow; streams: StreamRow[] }>();
  for (const [u, s] of added) {
    if (u.id === actor.id || u.is_bot || createdIds.has(s.id)) continue;
    const entry = perUser.get(u.id) ?? { user: u, streams: [] };
    entry.streams.push(s);
    perUser.set(u.id, entry);
  }
  if (!perUser.size) return;
  const bot = await notificationBot(svc);
  const actorMention = `@**${actor.full_name}|${actor.id}**`;
  for (const { user, streams } of perUser.values()) {
    const sorted = [...streams].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const content =
      sorted.length === 1
        ? `${actorMention} subscribed you to the channel ${channelLinkSyntax(sorted[0]!)}.`
        : `${actorMention} subscribed you to the following channels:\n\n${sorted.map((s) => `* ${channelLinkSyntax(s)}\n`).join('')}`;
    try {
      await sendMessage(svc, bot, { type: 'private', to: JSON.stringify([user.id]), topic: undefined, content, clientName: 'Internal', readBySender: true });
    } catch (err) {
      svc.log.warn({ err, userId: user.id }, 'new subscription message failed');
    }
  }
}

// ---------------------------------------------------------------------------
// Unsubscribing

/** The channels named, each one the user can see; else Zulip's "Channel(s) (...) do not exist". */
async function visibleStreamsByName(svc: Services, db: Tx, user: UserRow, names: string[], before: ChannelContext, groups: Groups): Promise<StreamRow[]> {
  const streams: StreamRow[] = [];
  const missing: string[] = [];
  for (const raw of names) {
    const s = await streamByName(db, svc.realmId, raw.trim());
    const visible = s && streamAccess(user, s, (before.subscribers.get(s.id) ?? []).includes(user.id), groups).metadata;
    if (!s || !visible) missing.push(raw.trim());
    else if (!streams.some((x) => x.id === s.id)) streams.push(s);
  }
  if (missing.length) throw badRequest(`Channel(s) (${missing.join(', ')}) do not exist`);
  return streams;
}

/** DELETE /users/me/subscriptions. */
export async function unsubscribe(svc: Services, user: UserRow, names: string[], principals: Array<string | number>): Promise<{ removed: string[]; not_removed: string[] }> {
  const before = await loadChannelContext(svc, svc.store.db);
  const targets = principals.length ? resolvePrincipals(svc, user, before.users, principals) : [user];
  const announceAccess = await trackChannelsAccess(svc, before, targets, names);
  const removingOthers = targets.some((t) => t.id !== user.id && !(t.is_bot && t.bot_owner_id === user.id));
  const result = await transaction(svc.store, async (tx) => {
    await lockSubscriptionsOf(svc.store, tx);
    const groups = await cachedGroups(svc, tx);
    const streams = await visibleStreamsByName(svc, tx, user, names, before, groups);
    if (removingOthers) {
      for (const s of streams) {
        const access = streamAccess(user, s, (before.subscribers.get(s.id) ?? []).includes(user.id), groups);
        if (!canRemoveSubscribers(user, access, groups)) throw badRequest('Insufficient permission');
      }
    }
    const removed: Array<[UserRow, StreamRow]> = [];
    const notRemoved: Array<[UserRow, StreamRow]> = [];
    for (const u of targets) {
      for (const s of streams) {
        if ((before.subscribers.get(s.id) ?? []).includes(u.id)) {
          await deactivateSubscription(tx, u.id, s.id);
          removed.push([u, s]);
        } else notRemoved.push([u, s]);
      }
    }
    return { removed, notRemoved };
  });
  await sendSubscriptionRemoveEvents(svc, before, result.removed);
  await announceAccess();
  return { removed: result.removed.map(([, s]) => s.name), not_removed: result.notRemoved.map(([, s]) => s.name) };
}

/** subscription remove to each user, peer_remove to the others who see the channel, stream delete to those who lost sight of it. */
export async function sendSubscriptionRemoveEvents(svc: Services, before: ChannelContext, removed: Array<[UserRow, StreamRow]>): Promise<void> {
  if (!removed.length) return;
  const after = await loadChannelContext(svc, svc.store.db);
  const perUser = new Map<number, StreamRow[]>();
  for (const [u, s] of removed) perUser.set(u.id, [...(perUser.get(u.id) ?? []), s]);
  for (const [uid, streams] of perUser) {
    svc.bus.send({ type: 'subscription', op: 'remove', subscriptions: streams.map((s) => ({ name: s.name, stream_id: s.id })) }, [uid], archivedSubscriptionsMeta(streams));
  }
  const perStream = new Map<number, number[]>();
  for (const [u, s] of removed) perStream.set(s.id, [...(perStream.get(s.id) ?? []), u.id]);
  for (const [sid, userIds] of perStream) {
    const stream = after.streams.find((s) => s.id === sid)!;
    const viewersBefore = metadataViewers(stream, before.users, new Set(before.subscribers.get(sid) ?? []), before.groups);
    const viewersAfter = new Set(metadataViewers(stream, after.users, new Set(after.subscribers.get(sid) ?? []), after.groups));
    const peers = [...viewersAfter].filter((id) => !userIds.includes(id));
    svc.bus.send({ type: 'subscription', op: 'peer_remove', stream_ids: [sid], user_ids: userIds }, peers, archivedSubscriptionsMeta([stream]));
    const lost = viewersBefore.filter((id) => !viewersAfter.has(id));
    if (lost.length) svc.bus.send({ type: 'stream', op: 'delete', streams: [formatStream(stream, after)], stream_ids: [sid] }, lost, archivedStreamMeta(stream));
  }
}

// ---------------------------------------------------------------------------
// Reading subscribers

/** GET /streams/{stream_id}/members. */
export async function getSubscribers(svc: Services, user: UserRow, streamId: number): Promise<number[]> {
  const ctx = await loadChannelContext(svc, svc.store.db);
  await accessStreamById(svc, svc.store.db, user, streamId, ctx.groups);
  return ctx.subscribers.get(streamId) ?? [];
}

/** GET /users/{user_id}/subscriptions/{stream_id}. */
export async function getSubscriptionStatus(svc: Services, user: UserRow, userId: number, streamId: number): Promise<boolean> {
  const ctx = await loadChannelContext(svc, svc.store.db);
  const target = ctx.users.find((u) => u.id === userId);
  if (!target) throw badRequest('No such user');
  if (!(await canAccessUser(svc, user, target))) throw badRequest('Insufficient permission');
  await accessStreamById(svc, svc.store.db, user, streamId, ctx.groups);
  return (ctx.subscribers.get(streamId) ?? []).includes(userId) || !!(await subscriptionRow(svc.store.db, userId, streamId))?.active;
}

/**
 * GET /users/{user_id}/channels: the channels the user is subscribed to,
 * limited to those whose metadata the caller may see (all of them for
 * administrators), as Zulip's subscribed_channel_ids.
 */
export async function getUserChannels(svc: Services, user: UserRow, userId: number): Promise<number[]> {
  const ctx = await loadChannelContext(svc, svc.store.db);
  const target = ctx.users.find((u) => u.id === userId && !u.is_system_bot);
  if (!target) throw badRequest('No such user');
  if (!(await canAccessUser(svc, user, target))) throw badRequest('Insufficient permission');
  const out: number[] = [];
  for (const s of ctx.streams) {
    const subs = ctx.subscribers.get(s.id) ?? [];
    if (subs.includes(userId) && streamAccess(user, s, subs.includes(user.id), ctx.groups).metadata) out.push(s.id);
  }
  return out.sort((a, b) => a - b);
}

/**
 * PATCH /users/me/subscriptions: subscribe to `add` and unsubscribe from
 * `delete` in one request (Zulip's update_subscriptions_backend, which runs
 * the two with their defaults and merges the answers).
 */
export async function updateSubscriptions(
  svc: Services,
  user: UserRow,
  add: Array<{ name: string; description?: string; color?: string }>,
  remove: string[],
): Promise<Record<string, unknown>> {
  if (add.length === 0 && remove.length === 0) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  // Zulip runs both halves in one transaction: a `delete` naming a channel the
  // user cannot see fails the whole request, so it is checked before anything
  // is added (channels the request itself creates are left to the second half).
  const adding = new Set(add.map((x) => x.name.trim()));
  const before = await loadChannelContext(svc, svc.store.db);
  await visibleStreamsByName(svc, svc.store.db, user, remove.filter((n) => !adding.has(n.trim())), before, before.groups);
  const out: Record<string, unknown> = {};
  if (add.length) {
    Object.assign(
      out,
      await subscribe(svc, user, {
        subscriptions: add,
        principals: [],
        authorizationErrorsFatal: true,
        announce: false,
        inviteOnly: false,
        isWebPublic: false,
        isDefault: false,
        historyPublicToSubscribers: null,
        groupSettings: {},
      }),
    );
  }
  if (remove.length) Object.assign(out, await unsubscribe(svc, user, remove, []));
  return out;
}

// ---------------------------------------------------------------------------
// Personal settings

export interface PropertyChange {
  stream_id: number;
  property: string;
  value: unknown;
}

function checkProperty(change: PropertyChange): { property: SubscriptionProperty; patch: SubscriptionPatch; value: unknown } {
  const property = change.property as SubscriptionProperty;
  if (!SUBSCRIPTION_PROPERTIES.includes(property)) throw badRequest(`Unknown subscription property: ${change.property}`);
  const v = change.value;
  if (property === 'color') {
    if (typeof v !== 'string') throw badRequest('color is not a string');
    if (!/^#([a-fA-F0-9]{3}|[a-fA-F0-9]{6})$/.test(v)) throw badRequest('color is not a valid hex color code');
    return { property, patch: { color: v }, value: v };
  }
  if (typeof v !== 'boolean') throw badRequest(`${property} is not a boolean`);
  switch (property) {
    case 'is_muted':
      return { property, patch: { is_muted: v ? 1 : 0 }, value: v };
    case 'in_home_view':
      return { property, patch: { is_muted: v ? 0 : 1 }, value: v };
    case 'pin_to_top':
      return { property, patch: { pin_to_top: v ? 1 : 0 }, value: v };
    default:
      return { property, patch: { [property]: v ? 1 : 0 }, value: v };
  }
}

/** PATCH /users/me/subscriptions/{stream_id} and POST /users/me/subscriptions/properties. */
export async function updateSubscriptionProperties(svc: Services, user: UserRow, changes: PropertyChange[]): Promise<void> {
  const events: Array<Record<string, unknown>> = [];
  const archived: StreamRow[] = [];
  await transaction(svc.store, async (tx) => {
    const groups = await cachedGroups(svc, tx);
    for (const change of changes) {
      const stream = await streamById(tx, svc.realmId, change.stream_id);
      if (!stream) throw badRequest('Invalid channel ID');
      const sub = await subscriptionRow(tx, user.id, stream.id);
      if (!streamAccess(user, stream, !!sub?.active, groups).metadata) throw badRequest('Invalid channel ID');
      if (!sub?.active) throw badRequest(`Not subscribed to channel ID ${stream.id}`);
      const { property, patch, value } = checkProperty(change);
      if (stream.is_archived) archived.push(stream);
      await updateSubscription(tx, user.id, stream.id, patch);
      const updated = { ...sub, ...patch } as typeof sub;
      events.push({ stream_id: stream.id, property, value });
      // is_muted and in_home_view are inverses: clients get both.
      if (property === 'is_muted') events.push({ stream_id: stream.id, property: 'in_home_view', value: subscriptionPropertyValue(updated, 'in_home_view') });
      if (property === 'in_home_view') events.push({ stream_id: stream.id, property: 'is_muted', value: subscriptionPropertyValue(updated, 'is_muted') });
    }
  });
  const options = archivedSubscriptionsMeta(archived);
  for (const e of events) svc.bus.send({ type: 'subscription', op: 'update', ...e }, [user.id], options);
}
