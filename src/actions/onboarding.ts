/**
 * A new organization's first channels.
 *
 * As Zulip does: "general" (public, a default channel, where new-channel
 * and update announcements go) and "core team" (private, where sign-up
 * announcements go). New users are subscribed to the default channels as
 * they are created (createUser). Welcome Bot then greets the first owner.
 */
import { lockSettingsOf, withClusterLock } from '../store/locks.ts';
import { cachedGroups } from './cache.ts';
import type { Services } from '../services.ts';
import { transaction } from '../store/db.ts';
import { realmById, updateRealm } from '../store/realm.ts';
import { hasAnyChannel } from '../store/streams.ts';
import { firstActiveOwner, type UserRow } from '../store/users.ts';
import { parseJsonObject } from '../lib/util.ts';
import { addSubscriptionsTx, insertChannel } from './streams-create.ts';
import { greetNewUser } from './welcome-bot.ts';

/**
 * At every start: an organization without any channel gets its first ones,
 * once across processes. That is the first start, and a start after a
 * first one that stopped between creating the organization and its
 * channels (channels are archived, never deleted, so none means never made).
 */
export async function ensureInitialChannels(svc: Services, createdOwner: UserRow | undefined): Promise<void> {
  await withClusterLock(svc.store, 'bootstrap', { wait: true }, async () => {
    if (await hasAnyChannel(svc.store.db, svc.realmId)) return;
    const owner = createdOwner ?? (await firstActiveOwner(svc.store.db, svc.realmId));
    if (!owner) return;
    await createInitialChannels(svc, owner);
    // Welcome Bot greets the organization's first owner, as Zulip greets its creator
    // (other accounts are greeted as they are made).
    await greetNewUser(svc, owner);
  });
}

async function createInitialChannels(svc: Services, owner: UserRow): Promise<void> {
  await transaction(svc.store, async (tx) => {
    const groups = await cachedGroups(svc, tx);
    const valid = new Set([owner.id]);
    const general = await insertChannel(
      svc,
      tx,
      null,
      {
        name: 'general',
        description: 'Everyone is added to this channel by default. Welcome! :octopus:',
        inviteOnly: false,
        isWebPublic: false,
        groupSettings: {},
        isDefault: true,
      },
      groups,
      valid,
    );
    const core = await insertChannel(
      svc,
      tx,
      null,
      { name: 'core team', description: 'A private channel for core team members.', inviteOnly: true, isWebPublic: false, groupSettings: {}, isDefault: false },
      groups,
      valid,
    );
    await lockSettingsOf(svc.store, tx, 'realm', svc.realmId);
    const realm = await realmById(tx, svc.realmId);
    const settings = parseJsonObject(realm.settings_json);
    Object.assign(settings, {
      new_stream_announcements_stream_id: general.id,
      zulip_update_announcements_stream_id: general.id,
      signup_announcements_stream_id: core.id,
    });
    await updateRealm(tx, svc.realmId, { settings_json: JSON.stringify(settings) });
    await addSubscriptionsTx(tx, [general, core], [owner]);
  });
}
