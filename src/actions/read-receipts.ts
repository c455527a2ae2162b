/**
 * GET /messages/{message_id}/read_receipts: who has read a message, by
 * Zulip's rules -- the organization must enable read receipts; only active
 * users with send_read_receipts on; never the sender; neither users who muted
 * the requester nor users the requester muted.
 */
import type { Services } from '../services.ts';
import { badRequest } from '../lib/errors.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { userSettings } from '../lib/user-settings.ts';
import { realmById } from '../store/realm.ts';
import type { UserRow } from '../store/users.ts';
import { FLAG } from '../store/messages.ts';
import { messageRecipientsWithUsers } from '../store/read-receipts.ts';
import { mutedUserIds, mutingUserIds } from '../store/muted-users.ts';
import { accessMessage } from './access.ts';

export async function readReceipts(svc: Services, user: UserRow, messageId: number): Promise<number[]> {
  const db = svc.store.db;
  const access = await accessMessage(svc, db, user, messageId);
  if (!access) throw badRequest('Invalid message(s)');
  const realm = await realmById(db, svc.realmId);
  if (!realmSettings(realm.settings_json).enable_read_receipts) throw badRequest('Read receipts are disabled in this organization.');
  const hidden = new Set([...(await mutingUserIds(db, user.id)), ...(await mutedUserIds(db, user.id))]);
  const rows = await messageRecipientsWithUsers(db, messageId);
  return rows
    .filter(
      (r) =>
        (Number(r.flags) & FLAG.read) !== 0 &&
        Number(r.is_active) === 1 &&
        r.user_id !== access.row.sender_id &&
        !hidden.has(r.user_id) &&
        userSettings(r.settings_json).send_read_receipts === true,
    )
    .map((r) => r.user_id);
}
