/**
 * The user_settings and realm_user_settings_defaults sections of POST
 * /register, and the legacy top-level settings Zulip still sends to clients
 * without the `user_settings_object` capability.
 */
import { feature, type StateProvider } from './registry.ts';
import type { QueueFilter } from '../events/queue.ts';
import { realmById } from '../store/realm.ts';
import { userById } from '../store/users.ts';
import { AVAILABLE_NOTIFICATION_SOUNDS, EMOJISET_CHOICES, USER_SETTINGS, realmUserDefaults, userSettings } from '../lib/user-settings.ts';

const emojisetChoices = () => EMOJISET_CHOICES.map((e) => ({ key: e.key, text: e.text }));

const provider1: StateProvider = {
  types: ['user_settings', 'update_display_settings', 'update_global_notifications'],
  async fetch(svc, opts, wants) {
    const me = (await userById(svc.store.db, svc.realmId, opts.user.id)) ?? opts.user;
    const s: Record<string, unknown> = { ...userSettings(me.settings_json), timezone: me.timezone };
    const out: Record<string, unknown> = {};
    const legacyClient = !opts.clientCapabilities.user_settings_object;
    if (wants('update_display_settings') && legacyClient) {
      for (const [k, def] of Object.entries(USER_SETTINGS)) if (def.legacy === 'display') out[k] = s[k];
      out.emojiset_choices = emojisetChoices();
      out.timezone = me.timezone;
    }
    if (wants('update_global_notifications') && legacyClient) {
      for (const [k, def] of Object.entries(USER_SETTINGS)) if (def.legacy === 'notification') out[k] = s[k];
      out.available_notification_sounds = [...AVAILABLE_NOTIFICATION_SOUNDS];
    }
    if (wants('user_settings')) {
      out.user_settings = {
        ...s,
        emojiset_choices: emojisetChoices(),
        available_notification_sounds: [...AVAILABLE_NOTIFICATION_SOUNDS],
      };
    }
    return out;
  },
};

const provider2: StateProvider = {
  types: ['realm_user_settings_defaults'],
  async fetch(svc) {
    const realm = await realmById(svc.store.db, svc.realmId);
    return {
      realm_user_settings_defaults: {
        ...realmUserDefaults(realm.user_defaults_json),
        emojiset_choices: emojisetChoices(),
        available_notification_sounds: [...AVAILABLE_NOTIFICATION_SOUNDS],
      },
    };
  },
};

const legacySettingsEvent: QueueFilter = (q, event) => (q.opts.clientCapabilities.user_settings_object ? null : event);

export default feature({
  state: [provider1, provider2],
  filters: {
    // Legacy settings events go only to clients without the user_settings_object capability.
    update_display_settings: legacySettingsEvent,
    update_global_notifications: legacySettingsEvent,
  },
});
