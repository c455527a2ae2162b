/**
 * Emoji reactions: the SQL. A reaction is identified by (message, user,
 * emoji_code, reaction_type); emoji_name is display data.
 */
import type { Tx } from './db.ts';

export interface ReactionKey {
  messageId: number;
  userId: number;
  emojiCode: string;
  reactionType: string;
}

/** The emoji name of a user's reaction (absent: no such reaction). */
export async function reactionName(db: Tx, k: ReactionKey): Promise<string | undefined> {
  const r = await db
    .selectFrom('reactions')
    .select('emoji_name')
    .where('message_id', '=', k.messageId)
    .where('user_id', '=', k.userId)
    .where('emoji_code', '=', k.emojiCode)
    .where('reaction_type', '=', k.reactionType)
    .executeTakeFirst();
  return r?.emoji_name;
}

/** The name of the oldest reaction with this emoji on the message, by anyone. */
export async function existingReactionName(db: Tx, messageId: number, emojiCode: string, reactionType: string): Promise<string | undefined> {
  const r = await db
    .selectFrom('reactions')
    .select('emoji_name')
    .where('message_id', '=', messageId)
    .where('emoji_code', '=', emojiCode)
    .where('reaction_type', '=', reactionType)
    .orderBy('id')
    .executeTakeFirst();
  return r?.emoji_name;
}

export async function insertReaction(db: Tx, k: ReactionKey, emojiName: string): Promise<void> {
  await db
    .insertInto('reactions')
    .values({ message_id: k.messageId, user_id: k.userId, emoji_name: emojiName, emoji_code: k.emojiCode, reaction_type: k.reactionType })
    .execute();
}

export async function deleteReaction(db: Tx, k: ReactionKey): Promise<void> {
  await db
    .deleteFrom('reactions')
    .where('message_id', '=', k.messageId)
    .where('user_id', '=', k.userId)
    .where('emoji_code', '=', k.emojiCode)
    .where('reaction_type', '=', k.reactionType)
    .execute();
}

/** Gives the user a (historical) user_messages row for a message they can see without one. */
export async function ensureUserMessage(db: Tx, userId: number, messageId: number, flags: number): Promise<void> {
  const r = await db.selectFrom('user_messages').select('message_id').where('user_id', '=', userId).where('message_id', '=', messageId).executeTakeFirst();
  if (!r) await db.insertInto('user_messages').values({ user_id: userId, message_id: messageId, flags }).execute();
}
