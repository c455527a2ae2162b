/**
 * The user_settings and realm_user_settings_defaults sections of POST
 * /register. Since feature level 439 Zulip sends neither the legacy
 * top-level copies of the settings nor the update_display_settings and
 * update_global_notifications events, to any client.
 */
import { feature, type StateProvider } from './registry.ts';
import { realmById } from '../store/realm.ts';
import { userById } from '../store/users.ts';
import { AVAILABLE_NOTIFICATION_SOUNDS, EMOJISET_CHOICES, realmUserDefaults, userSettings } from '../lib/user-settings.ts';

const emojisetChoices = () => EMOJISET_CHOICES.map((e) => ({ key: e.key, text: e.text }));

const provider1: StateProvider = {
  types: ['user_settings'],
  async fetch(svc, opts) {
    const me = (await userById(svc.store.db, svc.realmId, opts.user.id)) ?? opts.user;
    return {
      user_settings: {
        ...userSettings(me.settings_json),
        timezone: me.timezone,
        emojiset_choices: emojisetChoices(),
        available_notification_sounds: [...AVAILABLE_NOTIFICATION_SOUNDS],
      },
    };
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

export default feature({
  state: [provider1, provider2],
});
