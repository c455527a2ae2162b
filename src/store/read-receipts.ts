/** Read receipts: the recipients of a message with the facts Zulip's filter needs. */
import type { Tx } from './db.ts';

export interface ReceiptCandidate {
  user_id: number;
  flags: number;
  is_active: number;
  settings_json: string;
}

export async function messageRecipientsWithUsers(db: Tx, messageId: number): Promise<ReceiptCandidate[]> {
  return db
    .selectFrom('user_messages as um')
    .innerJoin('users as u', 'u.id', 'um.user_id')
    .select(['um.user_id', 'um.flags', 'u.is_active', 'u.settings_json'])
    .where('um.message_id', '=', messageId)
    .orderBy('um.user_id')
    .execute();
}
