/**
 * Organization permissions checked when a message is sent (and, for
 * wildcard mentions, edited), with Zulip's rules and errors:
 *
 * - can_mention_many_users_group: a channel wildcard mention (@**all**,
 *   @**everyone**, @**channel**) in a channel with more than 15 subscribers,
 *   or a topic wildcard mention (@**topic**) in a topic with more than 15
 *   participants, needs membership of the group;
 * - direct_message_permission_group: a direct message conversation (other
 *   than with oneself or bots) needs one participant in the group ("Direct
 *   messages are disabled" when the group is role:nobody);
 * - direct_message_initiator_group: starting a new conversation needs the
 *   sender in the group; replying in an existing one does not.
 *
 * Bots sending direct messages are not restricted, as in Zulip.
 */
import { cachedGroups } from './cache.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import type { UserRow } from '../store/users.ts';
import { RECIPIENT } from '../store/messages.ts';
import { topicSenderIds } from '../store/messages.ts';
import { directConversationExists } from '../store/direct-conversations.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { parseJsonObject } from '../lib/util.ts';
import { Groups, realmGroupSetting } from './group-settings.ts';

/** Zulip's WILDCARD_MENTION_THRESHOLD: larger audiences need can_mention_many_users_group. */
export const WILDCARD_MENTION_THRESHOLD = 15;

export async function checkWildcardMention(
  svc: Services,
  tx: Tx,
  sender: UserRow,
  settingsJson: string,
  target: { streamId: number; topic: string; subscriberCount: number },
  wildcard: 'all' | 'topic' | null,
  groups?: Groups,
): Promise<void> {
  if (wildcard === null) return;
  let audience = target.subscriberCount;
  if (wildcard === 'topic') {
    const participants = new Set(await topicSenderIds(tx, target.streamId, target.topic));
    participants.add(sender.id);
    audience = participants.size;
  }
  if (audience <= WILDCARD_MENTION_THRESHOLD) return;
  const g = groups ?? (await cachedGroups(svc, tx));
  if (g.allows(sender, realmGroupSetting(settingsJson, 'can_mention_many_users_group', g))) return;
  if (wildcard === 'all') {
    throw new ApiError('You do not have permission to use channel wildcard mentions in this channel.', { code: 'STREAM_WILDCARD_MENTION_NOT_ALLOWED' });
  }
  throw new ApiError('You do not have permission to use topic wildcard mentions in this topic.', { code: 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED' });
}

/** Whether a stored organization group setting is still Zulip's default of role:everyone (then nothing to check). */
const unsetSetting = (settingsJson: string, name: string): boolean => parseJsonObject(settingsJson)[name] === undefined;

export async function checkDirectMessagePermission(
  svc: Services,
  tx: Tx,
  sender: UserRow,
  settingsJson: string,
  conversation: { recipientType: number; recipientId: number; users: UserRow[] },
): Promise<void> {
  if (sender.is_bot) return;
  if (conversation.users.every((u) => u.is_bot || u.id === sender.id)) return;
  const permissionUnset = unsetSetting(settingsJson, 'direct_message_permission_group');
  const initiatorUnset = unsetSetting(settingsJson, 'direct_message_initiator_group');
  if (permissionUnset && initiatorUnset) return;
  const groups = await cachedGroups(svc, tx);
  const everyone = groups.systemGroupId('role:everyone');
  const permission = realmGroupSetting(settingsJson, 'direct_message_permission_group', groups);
  if (permission !== everyone) {
    const participants = [...conversation.users.filter((u) => u.id !== sender.id), sender];
    if (!participants.some((u) => groups.allows(u, permission))) {
      if (permission === groups.systemGroupId('role:nobody')) throw badRequest('Direct messages are disabled in this organization.');
      throw badRequest('This conversation does not include any users who can authorize it.');
    }
  }
  const initiator = realmGroupSetting(settingsJson, 'direct_message_initiator_group', groups);
  if (initiator === everyone || groups.allows(sender, initiator)) return;
  const exists =
    conversation.recipientType === RECIPIENT.GROUP
      ? await directConversationExists(tx, svc.realmId, { groupId: conversation.recipientId })
      : await directConversationExists(tx, svc.realmId, { userA: sender.id, userB: conversation.recipientId });
  if (!exists) throw badRequest('You do not have permission to initiate direct message conversations.');
}
