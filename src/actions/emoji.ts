/**
 * Emoji named in requests (reactions, user status), checked as Zulip checks
 * them: custom emoji by ID (realm_emoji), Zulip's extra "zulip" emoji, and
 * unicode emoji by Zulip's names and codes.
 */
import type { Tx } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import { checkUnicodeEmoji, emojiByName } from '../emoji/index.ts';
import { activeRealmEmojiByName, realmEmojiById } from '../store/user-status.ts';

/** Zulip's name for its built-in extra emoji type. */
export const EXTRA_EMOJI_TYPE = 'zulip_extra_emoji';
/** Accepted spellings of that type (the spec calls it service_extra_emoji). */
const EXTRA_EMOJI_TYPES = new Set([EXTRA_EMOJI_TYPE, 'service_extra_emoji']);

export const isExtraEmojiType = (type: string): boolean => EXTRA_EMOJI_TYPES.has(type);
/** The stored form of a reaction type (extra-emoji aliases become Zulip's name). */
export const normalizeEmojiType = (type: string): string => (isExtraEmojiType(type) ? EXTRA_EMOJI_TYPE : type);

/** A custom emoji code (its ID) as a number, or NaN. */
export const realmEmojiId = (code: string): number => (/^[1-9]\d{0,9}$/.test(code) ? Number(code) : NaN);

/** An emoji name alone, resolved as Zulip does: custom emoji first, then the extra "zulip", then unicode. */
export async function emojiData(db: Tx, realmId: number, name: string): Promise<{ code: string; type: string }> {
  const custom = await activeRealmEmojiByName(db, realmId, name);
  if (custom) return { code: String(custom.id), type: 'realm_emoji' };
  if (name === 'zulip') return { code: 'zulip', type: EXTRA_EMOJI_TYPE };
  const unicode = emojiByName(name);
  if (unicode) return { code: unicode.code, type: 'unicode_emoji' };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/** Checks that (name, code, type) denotes a usable emoji, with Zulip's messages. */
export async function checkEmoji(db: Tx, realmId: number, name: string, code: string, type: string): Promise<void> {
  if (type === 'realm_emoji') {
    const id = realmEmojiId(code);
    const custom = Number.isNaN(id) ? undefined : await realmEmojiById(db, realmId, id);
    if (!custom) throw badRequest('Invalid custom emoji.');
    if (custom.name !== name) throw badRequest('Invalid custom emoji name.');
    if (custom.deactivated) throw badRequest('This custom emoji has been deactivated.');
  } else if (isExtraEmojiType(type)) {
    if (code !== 'zulip') throw badRequest('Invalid emoji code.');
    if (name !== code) throw badRequest('Invalid emoji name.');
  } else if (type === 'unicode_emoji') {
    const r = checkUnicodeEmoji(name, code);
    if (!r.ok) throw badRequest(r.error);
  } else {
    throw badRequest('Invalid emoji type.');
  }
}
