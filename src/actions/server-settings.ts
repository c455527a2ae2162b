/** GET /server_settings: what a client needs before logging in. */
import type { Services } from '../services.ts';
import { realmById } from '../store/realm.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../lib/version.ts';
import { renderDescription } from './streams-format.ts';
import { realmIconUrl } from './realm-images.ts';

export async function serverSettings(svc: Services): Promise<Record<string, unknown>> {
  const realm = await realmById(svc.store.db, svc.realmId);
  const settings = realmSettings(realm.settings_json);
  const url = svc.config.externalUrl;
  return {
    authentication_methods: {
      password: true,
      dev: false,
      email: true,
      ldap: false,
      remoteuser: false,
      github: false,
      azuread: false,
      gitlab: false,
      apple: false,
      google: false,
      saml: false,
      'openid connect': false,
    },
    external_authentication_methods: [],
    zulip_feature_level: FEATURE_LEVEL,
    zulip_version: ZULIP_VERSION,
    zulip_merge_base: ZULIP_MERGE_BASE,
    push_notifications_enabled: false,
    is_incompatible: false,
    email_auth_enabled: true,
    require_email_format_usernames: true,
    realm_url: url,
    realm_uri: url,
    realm_name: realm.name,
    realm_icon: realmIconUrl(svc.config, realm),
    realm_description: await renderDescription(svc, svc.store.db, realm.description),
    realm_web_public_access_enabled: !!settings.enable_spectator_access && svc.config.webPublicStreamsEnabled,
  };
}
