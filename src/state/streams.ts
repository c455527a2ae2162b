/** Channel and subscription sections of POST /register (spec 2.3, 2.5). */
import { cachedGroups } from '../actions/cache.ts';
import { ROLE } from '../store/users.ts';
import { feature, type StateProvider } from './registry.ts';
import { streamEventFilter } from '../actions/streams-archive.ts';
import { subscriptionState } from '../actions/subscriptions.ts';
import { defaultStreamIds } from '../actions/streams-default.ts';
import { formatStream } from '../actions/streams-format.ts';
import { streamAccess } from '../actions/access.ts';
import { Groups, realmGroupSetting } from '../actions/group-settings.ts';
import { REALM_GROUP_SETTING_DEFAULTS } from '../lib/realm-settings.ts';
import { realmById } from '../store/realm.ts';

const provider: StateProvider = {
  types: ['subscription', 'stream', 'default_streams', 'default_stream_groups', 'realm'],
  async fetch(svc, opts, wants) {
    const out: Record<string, unknown> = {};
    const archivedChannels = !!opts.clientCapabilities.archived_channels;
    if (wants('subscription') || wants('stream')) {
      const st = await subscriptionState(svc, opts.user, opts.includeSubscribers, { archivedChannels });
      if (wants('subscription')) {
        out.subscriptions = st.subscriptions;
        out.unsubscribed = st.unsubscribed;
        out.never_subscribed = st.never_subscribed;
      }
      if (wants('stream')) {
        const subscribed = new Set(st.subscriptions.map((s) => s.stream_id as number));
        out.streams = st.ctx.streams
          .filter((s) => (archivedChannels || !s.is_archived) && streamAccess(opts.user, s, subscribed.has(s.id), st.ctx.groups).metadata)
          .map((s) => formatStream(s, st.ctx));
      }
    }
    // Guests do not see the organization's default channels (Zulip sends them an empty list).
    if (wants('default_streams')) out.realm_default_streams = opts.user.role === ROLE.GUEST ? [] : await defaultStreamIds(svc, svc.store.db);
    if (wants('default_stream_groups')) out.realm_default_stream_groups = [];
    if (wants('realm')) {
      // Organization-level channel/group permission settings (group-setting values).
      const groups = await cachedGroups(svc, svc.store.db);
      const realm = await realmById(svc.store.db, svc.realmId);
      for (const name of Object.keys(REALM_GROUP_SETTING_DEFAULTS)) out[`realm_${name}`] = realmGroupSetting(realm.settings_json, name, groups);
    }
    return out;
  },
};

export default feature({
  state: [provider],
  filters: {
    // Archiving/unarchiving reaches clients without archived_channels as delete/create.
    stream: streamEventFilter,
  },
});
