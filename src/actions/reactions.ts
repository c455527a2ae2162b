/**
 * Emoji reactions: POST and DELETE /messages/{message_id}/reactions and the
 * `reaction` events. A reaction on a message the user can see without a
 * user_messages row gives them a historical row (so later updates of the
 * message reach them), as Zulip does.
 */
import { lockUserRowsOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { emojiByCode } from '../emoji/index.ts';
import { transaction } from '../store/db.ts';
import { HISTORICAL_FLAGS } from '../store/messages.ts';
import { realmEmojiById } from '../store/user-status.ts';
import { deleteReaction, ensureUserMessage, existingReactionName, insertReaction, reactionName, type ReactionKey } from '../store/reactions.ts';
import type { UserRow } from '../store/users.ts';
import type { ZulipEvent } from '../events/types.ts';
import { accessMessageToModify, invalidMessage, messageEventRecipients } from './access.ts';
import { checkEmoji, emojiData, EXTRA_EMOJI_TYPE, normalizeEmojiType, realmEmojiId } from './emoji.ts';


/** Whether a code can name an emoji of the type at all (for removal; deactivated custom emoji still count). */
async function codeExists(db: Tx, realmId: number, code: string, type: string): Promise<boolean> {
  if (type === 'realm_emoji') {
    const id = realmEmojiId(code);
    return !Number.isNaN(id) && (await realmEmojiById(db, realmId, id)) !== undefined;
  }
  if (type === EXTRA_EMOJI_TYPE) return code === 'zulip';
  if (type === 'unicode_emoji') return emojiByCode(code) !== undefined;
  return false;
}

function reactionEvent(user: UserRow, op: 'add' | 'remove', messageId: number, name: string, code: string, type: string): ZulipEvent {
  return {
    type: 'reaction',
    op,
    user_id: user.id,
    // Zulip still sends this redundant object (deprecated in favour of user_id).
    user: { user_id: user.id, email: user.email, full_name: user.full_name },
    message_id: messageId,
    emoji_name: name,
    emoji_code: code,
    reaction_type: type,
  };
}

export interface EmojiInput {
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

export async function addReaction(svc: Services, user: UserRow, messageId: number, input: EmojiInput & { emojiName: string }): Promise<void> {
  const { event, recipients } = await transaction(svc.store, async (tx) => {
    // Two changes of one reaction at once: the second finds what the first did (PostgreSQL).
    await lockUserRowsOf(svc.store, tx, user.id);
    const a = await accessMessageToModify(svc, tx, user, messageId);
    if (!a) throw invalidMessage();
    let code = input.emojiCode;
    let type = input.reactionType === undefined ? undefined : normalizeEmojiType(input.reactionType);
    if (code === undefined || type === undefined) {
      const data = await emojiData(tx, svc.realmId, input.emojiName);
      code ??= data.code;
      type ??= data.type;
    }
    const key: ReactionKey = { messageId, userId: user.id, emojiCode: code, reactionType: type };
    if ((await reactionName(tx, key)) !== undefined) throw new ApiError('Reaction already exists.', { code: 'REACTION_ALREADY_EXISTS' });
    // A vote for a reaction someone already made takes that reaction's name,
    // unchecked (its emoji may have been deactivated since).
    let name = await existingReactionName(tx, messageId, code, type);
    if (name === undefined) {
      await checkEmoji(tx, svc.realmId, input.emojiName, code, type);
      name = input.emojiName;
    }
    if (!a.hasRow) await ensureUserMessage(tx, user.id, messageId, HISTORICAL_FLAGS);
    await insertReaction(tx, key, name);
    return { event: reactionEvent(user, 'add', messageId, name, code, type), recipients: await messageEventRecipients(svc, tx, a.row) };
  });
  svc.bus.send(event, recipients);
}

/**
 * Removal (spec 4.20): the emoji by code, or by name when no code is given;
 * reaction_type defaults to unicode_emoji, except that a name alone resolves
 * to its own type (custom emoji need no reaction_type).
 */
export async function removeReaction(svc: Services, user: UserRow, messageId: number, input: EmojiInput): Promise<void> {
  const { event, recipients } = await transaction(svc.store, async (tx) => {
    // Two changes of one reaction at once: the second finds what the first did (PostgreSQL).
    await lockUserRowsOf(svc.store, tx, user.id);
    const a = await accessMessageToModify(svc, tx, user, messageId);
    if (!a) throw invalidMessage();
    let code = input.emojiCode;
    let type = input.reactionType === undefined ? undefined : normalizeEmojiType(input.reactionType);
    if (code === undefined) {
      if (input.emojiName === undefined) throw badRequest('At least one of the following arguments must be present: emoji_name, emoji_code');
      const data = await emojiData(tx, svc.realmId, input.emojiName);
      code = data.code;
      type ??= data.type;
    }
    type ??= 'unicode_emoji';
    const key: ReactionKey = { messageId, userId: user.id, emojiCode: code, reactionType: type };
    const name = await reactionName(tx, key);
    if (name === undefined) {
      if (!(await codeExists(tx, svc.realmId, code, type))) throw badRequest('Invalid emoji code.');
      throw new ApiError("Reaction doesn't exist.", { code: 'REACTION_DOES_NOT_EXIST' });
    }
    await deleteReaction(tx, key);
    return { event: reactionEvent(user, 'remove', messageId, name, code, type), recipients: await messageEventRecipients(svc, tx, a.row) };
  });
  svc.bus.send(event, recipients);
}
