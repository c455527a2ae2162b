/**
 * Channel and subscription objects as Zulip returns them (spec 2.3, 2.5),
 * and the per-request context they are built from (groups, message
 * statistics, subscriber lists), loaded once per request.
 */
import { cachedGroups, cachedUsers } from './cache.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { parseJsonObject } from '../lib/util.ts';
import { renderMarkdownOrText } from '../markdown/index.ts';
import { activeEmojiForRendering, linkifiersForRendering } from './rendering-data.ts';
import { activeSubscriptionPairs, allStreams, channelMessageStats, type StreamRow, type SubscriptionRow } from '../store/streams.ts';
import { allGroups } from '../store/groups.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import { Groups, parseStoredSetting, settingForApi, type GroupSettingValue } from './group-settings.ts';
import { STREAM_GROUP_SETTINGS } from './access.ts';
import { STREAM_PERMISSION_SETTINGS } from '../lib/permission-settings.ts';

/** Zulip's palette for new subscriptions. */
export const STREAM_ASSIGNMENT_COLORS = [
  '#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5',
  '#f5ce6e', '#c2726a', '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063',
  '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4', '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462',
];

/** The first palette colour the user does not use yet; when all are used, one chosen by channel ID. */
export function pickColor(used: Iterable<string>, streamId: number): string {
  const taken = new Set(used);
  return STREAM_ASSIGNMENT_COLORS.find((c) => !taken.has(c)) ?? STREAM_ASSIGNMENT_COLORS[streamId % STREAM_ASSIGNMENT_COLORS.length];
}

/** Zulip's defaults for a new channel's group settings (system group names; 'creator': the creator alone). */
export const STREAM_GROUP_SETTING_DEFAULTS = Object.fromEntries(
  STREAM_GROUP_SETTINGS.map((name) => [name, STREAM_PERMISSION_SETTINGS[name].default_group_name === 'channel_creator' ? 'creator' : STREAM_PERMISSION_SETTINGS[name].default_group_name]),
) as Record<(typeof STREAM_GROUP_SETTINGS)[number], string>;

export const SUBSCRIPTION_PROPERTIES = [
  'color',
  'is_muted',
  'in_home_view',
  'pin_to_top',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
] as const;
export type SubscriptionProperty = (typeof SUBSCRIPTION_PROPERTIES)[number];

const DAY = 86400;
/** Channels with a message (or created) within this many days are "recently active". */
const RECENTLY_ACTIVE_DAYS = 180;

export interface ChannelContext {
  groups: Groups;
  /** Every account of the organization (the kept copy: shared and frozen). */
  users: readonly UserRow[];
  streams: StreamRow[];
  stats: Map<number, { first: number | null; recent: number; last: number | null }>;
  /** Active subscribers of each channel (active users only). */
  subscribers: Map<number, number[]>;
  now: number;
}

export async function loadChannelContext(svc: Services, db: Tx): Promise<ChannelContext> {
  const now = Math.floor(Date.now() / 1000);
  const [groups, { list: users, byId: userById }, streams, stats, pairs] = await Promise.all([
    cachedGroups(svc, db),
    cachedUsers(svc, db),
    allStreams(db, svc.realmId),
    channelMessageStats(db, svc.realmId, now - 28 * DAY),
    activeSubscriptionPairs(db, svc.realmId),
  ]);
  const subscribers = new Map<number, number[]>();
  for (const p of pairs) {
    if (!userById.get(p.user_id)?.is_active) continue;
    let list = subscribers.get(p.stream_id);
    if (!list) subscribers.set(p.stream_id, (list = []));
    list.push(p.user_id);
  }
  return { groups, users, streams, stats, subscribers, now };
}

/** Zulip's average weekly traffic: null for channels younger than a week. */
export function weeklyTraffic(stream: StreamRow, recent: number, now: number): number | null {
  const ageDays = Math.floor((now - stream.date_created) / DAY);
  let avg: number;
  if (ageDays >= 28) avg = Math.floor(recent / 4);
  else if (ageDays >= 7) avg = Math.floor((recent * 7) / ageDays);
  else return null;
  if (avg === 0 && recent > 0) avg = 1;
  return roundTo2Significant(avg);
}

function roundTo2Significant(n: number): number {
  if (n < 100) return n;
  const digits = Math.floor(Math.log10(n)) + 1;
  const scale = 10 ** (digits - 2);
  return Math.round(n / scale) * scale;
}

/** stream_post_policy of the system groups that have one (1 everyone, 2 admins, 3 full members, 4 moderators). */
const POST_POLICY_OF_SYSTEM_GROUP: Record<string, number> = {
  'role:everyone': 1,
  'role:members': 1,
  'role:administrators': 2,
  'role:fullmembers': 3,
  'role:moderators': 4,
};

/**
 * The deprecated stream_post_policy for can_send_message_group: for any
 * other value (owners, nobody, a user group, an anonymous group) the most
 * restrictive policy that still lets everyone in it post (Zulip's "superset
 * of the true value", feature level 333): administrators only, else
 * moderators, else full members, else everyone.
 */
export function streamPostPolicy(value: GroupSettingValue | undefined, groups: Groups, users: readonly UserRow[]): number {
  if (value === undefined) return 1;
  const system = typeof value === 'number' ? POST_POLICY_OF_SYSTEM_GROUP[groups.byId.get(value)?.name ?? ''] : undefined;
  if (system !== undefined) return system;
  const posters = users.filter((u) => u.is_active && groups.allows(u, value));
  if (posters.every((u) => u.role <= ROLE.ADMINISTRATOR)) return 2;
  if (posters.every((u) => u.role <= ROLE.MODERATOR)) return 4;
  if (posters.every((u) => u.role !== ROLE.GUEST && groups.isFullMember(u))) return 3;
  return 1;
}

function boolOrNull(v: number | null): boolean | null {
  return v === null ? null : !!v;
}

/** The channel object (spec 2.3). */
export function formatStream(stream: StreamRow, ctx: ChannelContext): Record<string, unknown> {
  const settings = parseJsonObject(stream.group_settings_json);
  const stat = ctx.stats.get(stream.id);
  const recentlyActive =
    ctx.now - stream.date_created < RECENTLY_ACTIVE_DAYS * DAY || (stat?.last !== null && stat?.last !== undefined && ctx.now - stat.last < RECENTLY_ACTIVE_DAYS * DAY);
  const out: Record<string, unknown> = {
    stream_id: stream.id,
    name: stream.name,
    is_archived: !!stream.is_archived,
    description: stream.description,
    rendered_description: stream.rendered_description,
    date_created: Number(stream.date_created),
    creator_id: stream.creator_id,
    invite_only: !!stream.invite_only,
    is_web_public: !!stream.is_web_public,
    message_retention_days: stream.message_retention_days,
    history_public_to_subscribers: !!stream.history_public_to_subscribers,
    topics_policy: stream.topics_policy,
    first_message_id: stat?.first ?? stream.first_message_id ?? null,
    folder_id: stream.folder_id,
    is_recently_active: recentlyActive,
    stream_weekly_traffic: weeklyTraffic(stream, stat?.recent ?? 0, ctx.now),
    subscriber_count: (ctx.subscribers.get(stream.id) ?? []).length,
  };
  for (const name of STREAM_GROUP_SETTINGS) out[name] = settingForApi(parseStoredSetting(settings[name]) ?? ctx.groups.systemGroupId('role:nobody'), ctx.users);
  const policy = streamPostPolicy(out.can_send_message_group as GroupSettingValue, ctx.groups, ctx.users);
  out.stream_post_policy = policy;
  out.is_announcement_only = policy === 2;
  return out;
}

/** The subscription object (spec 2.5): the channel plus the user's settings. */
export function formatSubscription(stream: StreamRow, sub: SubscriptionRow, ctx: ChannelContext): Record<string, unknown> {
  return {
    ...formatStream(stream, ctx),
    color: sub.color,
    is_muted: !!sub.is_muted,
    in_home_view: !sub.is_muted,
    pin_to_top: !!sub.pin_to_top,
    desktop_notifications: boolOrNull(sub.desktop_notifications),
    audible_notifications: boolOrNull(sub.audible_notifications),
    push_notifications: boolOrNull(sub.push_notifications),
    email_notifications: boolOrNull(sub.email_notifications),
    wildcard_mentions_notify: boolOrNull(sub.wildcard_mentions_notify),
  };
}

/** A subscription property's API value from a row. */
export function subscriptionPropertyValue(sub: SubscriptionRow, property: SubscriptionProperty): unknown {
  switch (property) {
    case 'color':
      return sub.color;
    case 'is_muted':
      return !!sub.is_muted;
    case 'in_home_view':
      return !sub.is_muted;
    case 'pin_to_top':
      return !!sub.pin_to_top;
    default:
      return boolOrNull(sub[property]);
  }
}

/** Renders a channel description (Zulip Markdown, one paragraph). */
export async function renderDescription(svc: Services, db: Tx, text: string): Promise<string> {
  if (text === '') return '';
  const [{ list: users }, streams, groups, linkifiers, customEmoji] = await Promise.all([
    cachedUsers(svc, db),
    allStreams(db, svc.realmId),
    allGroups(db, svc.realmId),
    linkifiersForRendering(db, svc.realmId),
    activeEmojiForRendering(db, svc.realmId),
  ]);
  const active = users.filter((u) => u.is_active);
  const byName = new Map<string, UserRow[]>();
  for (const u of active) {
    const k = u.full_name.toLowerCase();
    byName.set(k, [...(byName.get(k) ?? []), u]);
  }
  const pub = (u: UserRow) => ({ id: u.id, full_name: u.full_name, email: u.email });
  return renderMarkdownOrText(text, {
    userByFullName: (n) => {
      const list = byName.get(n.toLowerCase());
      return list && list.length === 1 ? pub(list[0]) : undefined;
    },
    userById: (id) => {
      const u = active.find((x) => x.id === id);
      return u ? pub(u) : undefined;
    },
    groupByName: (n) => {
      const g = groups.find((x) => x.name === n && !x.deactivated);
      return g ? { id: g.id, name: g.name } : undefined;
    },
    streamByName: (n) => {
      const s = streams.find((x) => x.name.toLowerCase() === n.toLowerCase());
      return s ? { id: s.id, name: s.name } : undefined;
    },
    linkifiers,
    customEmojiByName: (name) => customEmoji.get(name),
    realmUrl: svc.config.externalUrl,
  });
}
