/** The `realm_emoji` section of POST /register: the organization's custom emoji by ID (deactivated ones included, as Zulip). */
import { registerState } from '../events/state.ts';
import { allRealmEmoji } from '../store/user-status.ts';

registerState({
  types: ['realm_emoji'],
  async fetch(svc) {
    const rows = await allRealmEmoji(svc.store.db, svc.realmId);
    const out: Record<string, unknown> = {};
    for (const e of rows) {
      out[String(e.id)] = {
        id: String(e.id),
        name: e.name,
        source_url: `${svc.config.externalUrl}/user_avatars/${e.realm_id}/emoji/images/${e.file_name}`,
        still_url: null,
        deactivated: !!e.deactivated,
        author_id: e.author_id,
      };
    }
    return { realm_emoji: out };
  },
});
