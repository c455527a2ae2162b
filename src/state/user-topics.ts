/**
 * Topic preferences in POST /register: `user_topics` (fetch type
 * user_topic) and the legacy `muted_topics` list of [channel name, topic,
 * date muted] for muted topics (fetch type muted_topics, still read by
 * zulip-terminal).
 */
import { feature, type StateProvider } from './registry.ts';
import { mutedTopicsEventFilter, userTopicEventFilter } from '../actions/user-topics.ts';
import { userTopicRows } from '../store/messages.ts';
import { realmById } from '../store/realm.ts';
import { realmSettings } from '../lib/realm-settings.ts';

const MUTED = 1;

const provider: StateProvider = {
  types: ['user_topic', 'muted_topics'],
  async fetch(svc, opts, wants) {
    const rows = await userTopicRows(svc.store.db, opts.user.id);
    const out: Record<string, unknown> = {};
    // The empty topic is named for clients without the empty_topic_name capability.
    const emptyName = String(realmSettings((await realmById(svc.store.db, svc.realmId)).settings_json).empty_topic_display_name);
    const name = (t: string): string => (t === '' && !opts.clientCapabilities.empty_topic_name ? emptyName : t);
    if (wants('user_topic')) {
      out.user_topics = rows.map((r) => ({
        stream_id: r.stream_id,
        topic_name: name(r.topic),
        last_updated: Number(r.last_updated),
        visibility_policy: r.visibility_policy,
      }));
    }
    if (wants('muted_topics')) {
      out.muted_topics = rows.filter((r) => r.visibility_policy === MUTED).map((r) => [r.stream_name, name(r.topic), Number(r.last_updated)]);
    }
    return out;
  },
};

export default feature({
  state: [provider],
  filters: { user_topic: userTopicEventFilter, muted_topics: mutedTopicsEventFilter },
});
