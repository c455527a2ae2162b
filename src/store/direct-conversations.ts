/** Whether a direct-message conversation already has messages (Zulip's check before a new conversation is started). */
import type { Tx } from './db.ts';
import { RECIPIENT } from './messages.ts';

/**
 * A one-to-one conversation between `userA` and `userB` (messages from either
 * to the other), or a group conversation by its recipient ID.
 */
export async function directConversationExists(db: Tx, realmId: number, c: { userA: number; userB: number } | { groupId: number }): Promise<boolean> {
  let q = db.selectFrom('messages').select('id').where('realm_id', '=', realmId);
  if ('groupId' in c) {
    q = q.where('recipient_type', '=', RECIPIENT.GROUP).where('recipient_id', '=', c.groupId);
  } else {
    q = q
      .where('recipient_type', '=', RECIPIENT.PERSONAL)
      .where((eb) =>
        eb.or([
          eb.and([eb('sender_id', '=', c.userA), eb('recipient_id', '=', c.userB)]),
          eb.and([eb('sender_id', '=', c.userB), eb('recipient_id', '=', c.userA)]),
        ]),
      );
  }
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}
