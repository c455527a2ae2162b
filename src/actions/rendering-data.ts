/**
 * What rendering a message reads of the organization's own settings: its
 * linkifiers and its active custom emoji, loaded from the store. The kept
 * copy (cache.ts) loads them through here, and so does a channel
 * description's rendering; the actions that change them (linkifiers.ts,
 * realm-emoji.ts) take their events' recipients from the kept copy, so
 * these loaders sit below both.
 */
import type { Tx } from '../store/db.ts';
import { linkifiersOf } from '../store/linkifiers.ts';
import { allRealmEmoji } from '../store/user-status.ts';
import type { Linkifier } from '../markdown/linkifiers.ts';
import { AVATARS_URL_PREFIX } from './avatar-files.ts';

/** Where a custom emoji's image is stored, under the avatars' directory. */
export const emojiPath = (realmId: number, fileName: string): string => `${realmId}/emoji/images/${fileName}`;

/** The organization's linkifiers in order, as the Markdown renderer takes them. */
export async function linkifiersForRendering(db: Tx, realmId: number): Promise<Linkifier[]> {
  return (await linkifiersOf(db, realmId)).map((r) => ({ pattern: r.pattern, url_template: r.url_template }));
}

/** Active custom emoji by name, as the Markdown renderer looks them up. */
export async function activeEmojiForRendering(db: Tx, realmId: number): Promise<Map<string, { id: string; name: string; source_url: string }>> {
  const out = new Map<string, { id: string; name: string; source_url: string }>();
  for (const e of await allRealmEmoji(db, realmId)) {
    if (e.deactivated || !e.file_name || out.has(e.name)) continue;
    out.set(e.name, { id: String(e.id), name: e.name, source_url: AVATARS_URL_PREFIX + emojiPath(e.realm_id, e.file_name) });
  }
  return out;
}
