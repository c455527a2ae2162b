/**
 * Channels: the checks shared by creating and updating them (names,
 * descriptions, retention, group settings) and reading them (GET /streams...).
 * Creating, updating, archiving and default channels each have their own
 * module: streams-create.ts, streams-update.ts, streams-archive.ts,
 * streams-default.ts.
 */
import type { Services } from '../services.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { codePointLength } from '../lib/util.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import { checkedPermissionValue, Groups, type GroupSettingValue } from './group-settings.ts';
import { STREAM_PERMISSION_SETTINGS } from '../lib/permission-settings.ts';
import { accessStreamById, accessStreamByName, streamAccess } from './access.ts';
import { formatStream, loadChannelContext } from './streams-format.ts';

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

export function channelAlreadyExists(name: string): ApiError {
  return new ApiError(`Channel '${name}' already exists`, { code: 'CHANNEL_ALREADY_EXISTS' });
}

/** Checks a group-setting value sent for a channel setting and returns the stored form. */
export function checkStreamGroupSetting(groups: Groups, validUsers: ReadonlySet<number>, name: string, value: GroupSettingValue): GroupSettingValue {
  return checkedPermissionValue(groups, validUsers, STREAM_PERMISSION_SETTINGS[name], name, value);
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
    // A bot sees its owner's channels, private ones included (Zulip's include_owner_subscribed).
    if (ownerSubs.has(s.id)) include = true;
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
