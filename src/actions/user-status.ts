/**
 * User status: POST /users/me/status, GET /users/{user_id}/status and the
 * `user_status` register state. A status is a text and an emoji; the
 * deprecated `away` flag is the inverse of the user's presence_enabled
 * setting (changing it changes the setting).
 */
import { lockSettingsOf, lockUserRowsOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import { badRequest, requireAdmin } from '../lib/errors.ts';
import { nowSeconds } from '../lib/util.ts';
import { userSettingsOf } from '../lib/user-settings.ts';
import { transaction } from '../store/db.ts';
import { updateUser, userById, type UserRow } from '../store/users.ts';
import {
  allUserStatuses,
  upsertUserStatus,
  userStatusOf,
  type UserStatusPatch,
} from '../store/user-status.ts';
import type { ZulipEvent } from '../events/types.ts';
import { noSuchUser } from './users-read.ts';
import { cachedUsers } from './cache.ts';
import { checkEmoji, emojiData } from './emoji.ts';
import { presenceEnabledChanged } from './presence.ts';
import { accessUserById } from './users-admin.ts';
import { isAdminRole } from './users-format.ts';
import { userIdsWhoCanAccess } from './user-access.ts';

export const MAX_STATUS_TEXT_LENGTH = 60;


export interface StatusUpdate {
  away?: boolean;
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

/** A status as Zulip formats it: only the set fields; `away` only when true. */
export interface FormattedStatus {
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

export function formatStatus(
  row: { status_text: string; emoji_name: string; emoji_code: string; reaction_type: string } | undefined,
  presenceEnabled: boolean,
): FormattedStatus {
  const out: FormattedStatus = {};
  if (!presenceEnabled) out.away = true;
  if (!row) return out;
  if (row.status_text) out.status_text = row.status_text;
  if (row.emoji_name) {
    out.emoji_name = row.emoji_name;
    out.emoji_code = row.emoji_code;
    out.reaction_type = row.reaction_type;
  }
  return out;
}

const presenceEnabled = (u: { readonly settings_json: string }): boolean => userSettingsOf(u).presence_enabled !== false;

/** POST /users/me/status: the caller's own status (human users only). */
export async function updateUserStatus(svc: Services, user: UserRow, input: StatusUpdate): Promise<void> {
  if (user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
  await applyUserStatus(svc, user, input);
}

/** POST /users/{user_id}/status (FL 407): an administrator sets another user's (or bot's) status. */
export async function updateUserStatusByAdmin(svc: Services, admin: UserRow, userId: number, input: Omit<StatusUpdate, 'away'>): Promise<void> {
  if (!isAdminRole(admin.role)) throw requireAdmin();
  const target = await accessUserById(svc, admin, userId, { allowBots: true, forAdmin: true });
  await applyUserStatus(svc, target, input);
}

async function applyUserStatus(svc: Services, user: UserRow, input: StatusUpdate): Promise<void> {
  const statusText = input.statusText?.trim();
  if (statusText !== undefined && [...statusText].length > MAX_STATUS_TEXT_LENGTH) {
    throw badRequest(`status_text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters)`);
  }
  const { away } = input;
  let { emojiName, emojiCode, reactionType } = input;
  // An emoji code or type without its name is its own error, before "no new values".
  if (emojiName === undefined && (reactionType || emojiCode)) {
    throw badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  }
  if (away === undefined && statusText === undefined && emojiName === undefined) {
    throw badRequest('Client did not pass any new values.');
  }

  const events: Array<[ZulipEvent, number[]]> = [];
  await transaction(svc.store, async (tx) => {
    // One status row per user, even for two changes at once (PostgreSQL).
    await lockUserRowsOf(svc.store, tx, user.id);
    if (emojiName === '') {
      // An empty name clears the emoji.
      emojiCode = '';
      reactionType = 'unicode_emoji';
    } else if (emojiName !== undefined) {
      if (emojiCode === undefined || reactionType === undefined) {
        const data = await emojiData(tx, svc.realmId, emojiName);
        emojiCode ??= data.code;
        reactionType ??= data.type;
      }
      await checkEmoji(tx, svc.realmId, emojiName, emojiCode, reactionType);
    }

    if (away !== undefined) {
      await lockSettingsOf(svc.store, tx, 'user', user.id);
      const fresh = (await userById(tx, svc.realmId, user.id)) ?? user;
      const stored = JSON.parse(fresh.settings_json || '{}') as Record<string, unknown>;
      stored.presence_enabled = !away;
      await updateUser(tx, user.id, { settings_json: JSON.stringify(stored) });
      events.push([{ type: 'user_settings', op: 'update', property: 'presence_enabled', value: !away }, [user.id]]);
    }

    const patch: UserStatusPatch = { status_text: statusText };
    if (emojiName !== undefined) {
      patch.emoji_name = emojiName;
      patch.emoji_code = emojiCode;
      patch.reaction_type = reactionType;
    }
    await upsertUserStatus(tx, user.id, patch, nowSeconds());

    const event: ZulipEvent = { type: 'user_status', user_id: user.id };
    if (away !== undefined) event.away = away;
    if (statusText !== undefined) event.status_text = statusText;
    if (emojiName !== undefined) {
      event.emoji_name = emojiName;
      event.emoji_code = emojiCode;
      event.reaction_type = reactionType;
    }
    // As Zulip: to the users who may access this one.
    events.push([event, await userIdsWhoCanAccess(svc, user, tx)]);
  });
  for (const [event, recipients] of events) svc.bus.send(event, recipients);
  // As for any presence_enabled change, everyone sees the user's presence follow at once.
  if (away !== undefined) await presenceEnabledChanged(svc, user, !away);
}

/** GET /users/{user_id}/status: the status of an active human user of the organization. */
export async function getUserStatus(svc: Services, userId: number): Promise<FormattedStatus> {
  const target = await userById(svc.store.db, svc.realmId, userId);
  if (!target || target.is_bot) throw noSuchUser();
  if (!target.is_active) throw badRequest('User is deactivated');
  const row = await userStatusOf(svc.store.db, target.id);
  // Zulip answers {} for a user who never set a status (even one marked away).
  return row ? formatStatus(row, presenceEnabled(target)) : {};
}

/** The `user_status` register state: active users with a status (or away), keyed by user ID. */
export async function userStatusState(svc: Services): Promise<Record<string, FormattedStatus>> {
  const out: Record<string, FormattedStatus> = {};
  const users = (await cachedUsers(svc)).byId;
  for (const row of await allUserStatuses(svc.store.db)) {
    const user = users.get(row.user_id);
    if (!user?.is_active) continue;
    const enabled = presenceEnabled(user);
    if (enabled && !row.status_text && !row.emoji_name && !row.emoji_code && row.reaction_type === 'unicode_emoji') continue;
    out[String(row.user_id)] = formatStatus(row, enabled);
  }
  return out;
}
