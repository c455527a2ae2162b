/** Channel and subscription sections of POST /register (spec 2.3, 2.5). */
import { cachedGroups, cachedUsers } from '../actions/cache.ts';
import { ROLE } from '../store/users.ts';
import { feature, type StateProvider } from './registry.ts';
import { streamEventFilter, subscriptionEventFilter } from '../actions/streams-archive.ts';
import { spectatorSubscriptions, subscriptionState } from '../actions/subscriptions.ts';
import { defaultStreamIds } from '../actions/streams-default.ts';
import { formatStream } from '../actions/streams-format.ts';
import { streamAccess } from '../actions/access.ts';
import { realmGroupSetting, settingForApi } from '../actions/group-settings.ts';
import { REALM_GROUP_SETTING_DEFAULTS } from '../lib/realm-settings.ts';
import { realmById } from '../store/realm.ts';
import { userSettingsOf } from '../lib/user-settings.ts';

/** The subscription settings that are null while they follow the user's default (enable_stream_<name>). */
const NULLABLE_NOTIFICATION_SETTINGS = ['desktop_notifications', 'audible_notifications', 'push_notifications', 'email_notifications'] as const;

const provider: StateProvider = {
  types: ['subscription', 'stream', 'default_streams', 'default_stream_groups', 'realm'],
  async fetch(svc, opts, wants) {
    const out: Record<string, unknown> = {};
    const archivedChannels = !!opts.clientCapabilities.archived_channels;
    if (opts.spectator) {
      // A spectator's "subscriptions" are the web-public channels; it gets no `streams` (as Zulip, for now).
      if (wants('subscription')) Object.assign(out, { subscriptions: await spectatorSubscriptions(svc, { archivedChannels }), unsubscribed: [], never_subscribed: [] });
    } else if (wants('subscription') || wants('stream')) {
      const st = await subscriptionState(svc, opts.user, opts.includeSubscribers, { archivedChannels });
      if (wants('subscription')) {
        out.subscriptions = st.subscriptions;
        out.unsubscribed = st.unsubscribed;
        out.never_subscribed = st.never_subscribed;
        // Clients without notification_settings_null (older apps) take these settings as booleans: a
        // subscription that follows the user's default gets the default's value, as Zulip sends them.
        if (opts.clientCapabilities.notification_settings_null !== true) {
          const settings = userSettingsOf(opts.user);
          for (const sub of [...st.subscriptions, ...st.unsubscribed]) {
            for (const name of NULLABLE_NOTIFICATION_SETTINGS) sub[name] ??= settings[`enable_stream_${name}`];
          }
        }
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
      const users = (await cachedUsers(svc)).list;
      for (const name of Object.keys(REALM_GROUP_SETTING_DEFAULTS)) out[`realm_${name}`] = settingForApi(realmGroupSetting(realm.settings_json, name, groups), users);
      // The enum it replaced (FL 352), for older clients: Zulip's values for the system groups.
      const mention = out.realm_can_mention_many_users_group;
      const byName = typeof mention === 'number' ? groups.byId.get(mention)?.name : undefined;
      out.realm_wildcard_mention_policy = LEGACY_WILDCARD_MENTION_POLICY[byName ?? ''] ?? 1;
    }
    return out;
  },
};

/** wildcard_mention_policy values by the system group that replaced them (everyone, members, full members, administrators, nobody, moderators). */
const LEGACY_WILDCARD_MENTION_POLICY: Record<string, number> = {
  'role:everyone': 1,
  'role:members': 2,
  'role:fullmembers': 3,
  'role:administrators': 5,
  'role:nobody': 6,
  'role:moderators': 7,
};

export default feature({
  state: [provider],
  filters: {
    // Archiving/unarchiving reaches clients without archived_channels as delete/create.
    stream: streamEventFilter,
    // Subscription events about archived channels reach only clients with archived_channels.
    subscription: subscriptionEventFilter,
  },
});
