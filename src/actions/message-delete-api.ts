/**
 * DELETE /messages/{message_id}: Zulip's permission rules (FL 281/291/407).
 *
 * - Members of the organization's can_delete_any_message_group, and for
 *   channel messages of the channel's can_delete_any_message_group, may
 *   delete any message they can access, at any time.
 * - Others may delete only their own messages (or their bots'), when in the
 *   organization's can_delete_own_message_group or (channel messages) the
 *   channel's can_delete_own_message_group, within the organization's
 *   message_content_delete_limit_seconds (null: no limit).
 *
 * The deletion itself and its events are deleteMessages'.
 */
import { cachedGroups } from './cache.ts';
import type { Services } from '../services.ts';
import { badRequest } from '../lib/errors.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { realmById } from '../store/realm.ts';
import { RECIPIENT } from '../store/messages.ts';
import { streamById } from '../store/streams.ts';
import { userById, type UserRow } from '../store/users.ts';
import { accessMessageToModify, invalidMessage, streamGroupSetting } from './access.ts';
import { realmGroupSetting } from './group-settings.ts';
import { deleteMessages } from './message-delete.ts';

const noPermission = () => badRequest("You don't have permission to delete this message");

export async function deleteMessageByUser(svc: Services, user: UserRow, messageId: number): Promise<void> {
  // Checked inside the deleting transaction: a message moved meanwhile is judged where it now is.
  await deleteMessages(svc, async (tx) => {
    const a = await accessMessageToModify(svc, tx, user, messageId);
    if (!a) throw invalidMessage();
    const m = a.row;
    const realm = await realmById(tx, svc.realmId);
    const groups = await cachedGroups(svc, tx);
    const stream = m.recipient_type === RECIPIENT.STREAM ? await streamById(tx, svc.realmId, m.recipient_id) : undefined;

    const anyAllowed =
      groups.allows(user, realmGroupSetting(realm.settings_json, 'can_delete_any_message_group', groups)) ||
      (stream !== undefined && groups.allows(user, streamGroupSetting(stream, 'can_delete_any_message_group')));
    if (!anyAllowed) {
      let own = m.sender_id === user.id;
      if (!own) {
        const sender = await userById(tx, svc.realmId, m.sender_id);
        own = !!sender && sender.bot_owner_id === user.id;
      }
      if (!own) throw noPermission();
      const ownAllowed =
        groups.allows(user, realmGroupSetting(realm.settings_json, 'can_delete_own_message_group', groups)) ||
        (stream !== undefined && groups.allows(user, streamGroupSetting(stream, 'can_delete_own_message_group')));
      if (!ownAllowed) throw noPermission();
      const limit = realmSettings(realm.settings_json).message_content_delete_limit_seconds;
      if (typeof limit === 'number' && Date.now() / 1000 - m.date_sent > limit) {
        throw badRequest('The time limit for deleting this message has passed');
      }
    }
    return [m.id];
  });
}
