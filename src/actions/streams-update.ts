/** Updating a channel (PATCH /streams/{stream_id}) and the events it causes. */
import { lockSettingsOf } from '../store/locks.ts';
import { cachedActiveUserIdSet, cachedGroups } from './cache.ts';
import { checkChannelFolderId } from './channel-folders.ts';
import type { Services } from '../services.ts';
import { transaction } from '../store/db.ts';
import { badRequest, requireOwner } from '../lib/errors.ts';
import { parseJsonObject } from '../lib/util.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { realmById } from '../store/realm.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import { channelHasNamedTopics, streamById, streamByName, updateStream, type StreamPatch } from '../store/streams.ts';
import type { ZulipEvent } from '../events/types.ts';
import { checkChannelPolicyPermission, Groups, realmGroupSetting, type GroupSettingValue } from './group-settings.ts';
import { canAdministerChannel, metadataViewers, streamAccess, streamGroupSetting, type StreamGroupSetting } from './access.ts';
import { formatStream, loadChannelContext, renderDescription } from './streams-format.ts';
import { type TopicsPolicy, channelAlreadyExists, checkDescription, checkStreamGroupSetting, checkStreamName, parseRetention } from './streams.ts';
import { sendDefaultStreamsEvent } from './streams-default.ts';
import { archivedStreamMeta } from './streams-archive.ts';
import { channelChangedNotices } from './channel-notices.ts';

// ---------------------------------------------------------------------------
// Updating

export interface UpdateChannelInput {
  description?: string;
  new_name?: string;
  is_private?: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  is_default_stream?: boolean;
  message_retention_days?: string | number;
  is_archived?: boolean;
  folder_id?: number | null;
  topics_policy?: TopicsPolicy;
  groupSettings: Partial<Record<StreamGroupSetting, { new: GroupSettingValue; old?: GroupSettingValue }>>;
}

/** What an archived channel takes besides unarchiving (feature level 362): changes of privacy only. */
const PRIVACY_FIELDS = new Set<string>(['is_private', 'is_web_public', 'history_public_to_subscribers']);

function onlyPrivacyChange(input: UpdateChannelInput): boolean {
  const given = Object.entries(input).filter(([name, value]) => name !== 'groupSettings' && value !== undefined);
  return given.length > 0 && given.every(([name]) => PRIVACY_FIELDS.has(name)) && Object.keys(input.groupSettings).length === 0;
}

/** Settings whose change needs content access (others need metadata access), as Zulip. */
const CONTENT_ACCESS_SETTINGS = new Set<string>(['can_add_subscribers_group', 'can_subscribe_group']);

/** PATCH /streams/{stream_id}. */
export async function updateChannel(svc: Services, user: UserRow, streamId: number, input: UpdateChannelInput): Promise<void> {
  const before = await loadChannelContext(svc, svc.store.db);
  const events: Array<{ property: string; value: unknown; extra?: Record<string, unknown> }> = [];
  let defaultChanged = false;
  let unarchived = false;
  const stream = await transaction(svc.store, async (tx) => {
    await lockSettingsOf(svc.store, tx, 'stream', streamId);
    const groups = await cachedGroups(svc, tx);
    const stream = await streamById(tx, svc.realmId, streamId);
    if (!stream) throw badRequest('Invalid channel ID');
    const subscribed = (before.subscribers.get(stream.id) ?? []).includes(user.id);
    const access = streamAccess(user, stream, subscribed, groups);
    // Archived channels are visible to administrators for unarchiving.
    if (!access.metadata && !(stream.is_archived && user.role <= ROLE.ADMINISTRATOR)) throw badRequest('Invalid channel ID');
    if (!canAdministerChannel(user, stream, groups)) throw badRequest('You do not have permission to administer this channel.');
    if (stream.is_archived && input.is_archived !== false && !onlyPrivacyChange(input)) throw badRequest('Channel is archived.');
    const changesTopicsPolicy = input.topics_policy !== undefined && input.topics_policy !== stream.topics_policy;
    const changesDeletePolicy = 'can_delete_any_message_group' in input.groupSettings || 'can_delete_own_message_group' in input.groupSettings;
    if (changesTopicsPolicy || changesDeletePolicy) {
      checkChannelPolicyPermission(user, (await realmById(tx, svc.realmId)).settings_json, groups, { topicsPolicy: changesTopicsPolicy, deletePolicy: changesDeletePolicy });
    }
    const patch: StreamPatch = {};
    if (input.is_archived === true && !stream.is_archived) throw badRequest('Use DELETE /streams/{stream_id} to archive a channel.');
    if (input.is_archived === false && stream.is_archived) {
      patch.is_archived = 0;
      unarchived = true;
    }
    if (input.new_name !== undefined) {
      const name = checkStreamName(svc, input.new_name);
      if (name === stream.name) throw badRequest('Channel already has that name.');
      const other = await streamByName(tx, svc.realmId, name);
      if (other && other.id !== stream.id) throw channelAlreadyExists(name);
      patch.name = name;
      events.push({ property: 'name', value: name });
    }
    if (input.description !== undefined) {
      const description = checkDescription(svc, input.description);
      patch.description = description;
      patch.rendered_description = await renderDescription(svc, tx, description);
      events.push({ property: 'description', value: description, extra: { rendered_description: patch.rendered_description } });
    }
    const privacyChange = input.is_private !== undefined || input.is_web_public !== undefined || input.history_public_to_subscribers !== undefined;
    if (privacyChange) {
      if (!access.content) throw badRequest('Invalid channel ID');
      const isPrivate = input.is_private ?? !!stream.invite_only;
      const isWebPublic = input.is_web_public ?? !!stream.is_web_public;
      const history =
        input.history_public_to_subscribers ?? (input.is_private !== undefined ? !input.is_private : !!stream.history_public_to_subscribers);
      if (isWebPublic && !history) throw badRequest('Invalid parameters');
      if (isWebPublic && isPrivate) throw badRequest('Invalid parameters');
      if (!isPrivate && !history) throw badRequest('Invalid parameters');
      if (isPrivate && (input.is_default_stream ?? !!stream.is_default)) throw badRequest('A default channel cannot be private.');
      // The channel receiving message reports stays private (Zulip's check in update_stream_backend).
      if (!isPrivate) {
        const realm = await realmById(tx, svc.realmId);
        if (Number(realmSettings(realm.settings_json).moderation_request_channel_id) === stream.id) throw badRequest('Moderation request channel must be private.');
      }
      if (input.is_web_public) {
        const realm = await realmById(tx, svc.realmId);
        if (!svc.config.webPublicStreamsEnabled || !realmSettings(realm.settings_json).enable_spectator_access) throw badRequest('Web-public channels are not enabled.');
        if (!groups.allows(user, realmGroupSetting(realm.settings_json, 'can_create_web_public_channel_group', groups))) throw badRequest('Insufficient permission');
      }
      if (isPrivate && !history) {
        const current = streamGroupSetting(stream, 'can_create_topic_group');
        const next = input.groupSettings.can_create_topic_group?.new ?? current;
        if (next !== groups.systemGroupId('role:everyone')) {
          throw badRequest("'can_create_topic_group' must be 'role:everyone' for private channels with protected history.");
        }
      }
      if (isPrivate !== !!stream.invite_only || isWebPublic !== !!stream.is_web_public || history !== !!stream.history_public_to_subscribers) {
        patch.invite_only = isPrivate ? 1 : 0;
        patch.is_web_public = isWebPublic ? 1 : 0;
        patch.history_public_to_subscribers = history ? 1 : 0;
        if (isPrivate !== !!stream.invite_only) {
          events.push({ property: 'invite_only', value: isPrivate, extra: { history_public_to_subscribers: history, is_web_public: isWebPublic } });
        }
        if (isWebPublic !== !!stream.is_web_public) {
          events.push({ property: 'is_web_public', value: isWebPublic, extra: { history_public_to_subscribers: history, invite_only: isPrivate } });
        }
        if (history !== !!stream.history_public_to_subscribers && isPrivate === !!stream.invite_only && isWebPublic === !!stream.is_web_public) {
          events.push({ property: 'history_public_to_subscribers', value: history });
        }
      }
    }
    if (input.is_default_stream !== undefined) {
      if (user.role > ROLE.ADMINISTRATOR) throw badRequest('Must be an organization administrator');
      const isPrivate = patch.invite_only !== undefined ? !!patch.invite_only : !!stream.invite_only;
      if (input.is_default_stream && isPrivate) throw badRequest('A default channel cannot be private.');
      if (!!stream.is_default !== input.is_default_stream) {
        patch.is_default = input.is_default_stream ? 1 : 0;
        defaultChanged = true;
      }
    }
    if (input.message_retention_days !== undefined) {
      if (user.role !== ROLE.OWNER) throw requireOwner();
      const days = parseRetention(input.message_retention_days);
      if (days !== stream.message_retention_days) {
        patch.message_retention_days = days;
        events.push({ property: 'message_retention_days', value: days });
      }
    }
    if (input.folder_id !== undefined && input.folder_id !== stream.folder_id) {
      if (input.folder_id !== null) await checkChannelFolderId(tx, svc.realmId, input.folder_id);
      patch.folder_id = input.folder_id;
      events.push({ property: 'folder_id', value: input.folder_id });
    }
    if (input.topics_policy !== undefined && input.topics_policy !== stream.topics_policy) {
      if (input.topics_policy === 'empty_topic_only' && (await channelHasNamedTopics(tx, stream.id))) {
        throw badRequest('To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.');
      }
      patch.topics_policy = input.topics_policy;
      events.push({ property: 'topics_policy', value: input.topics_policy });
    }
    const settingEntries = Object.entries(input.groupSettings) as Array<[StreamGroupSetting, { new: GroupSettingValue; old?: GroupSettingValue }]>;
    if (settingEntries.length) {
      const settings = parseJsonObject(stream.group_settings_json);
      const validUsers = await cachedActiveUserIdSet(svc, tx);
      for (const [name, upd] of settingEntries) {
        if (CONTENT_ACCESS_SETTINGS.has(name) && !access.content) throw badRequest('Invalid channel ID');
        const current = streamGroupSetting(stream, name);
        if (upd.old !== undefined && !Groups.same(checkStreamGroupSetting(groups, validUsers, name, upd.old), current)) {
          throw badRequest("'old' value does not match the expected value.");
        }
        const next = checkStreamGroupSetting(groups, validUsers, name, upd.new);
        if (Groups.same(next, current)) continue;
        settings[name] = next;
        events.push({ property: name, value: next });
      }
      patch.group_settings_json = JSON.stringify(settings);
    }
    if (Object.keys(patch).length) await updateStream(tx, stream.id, patch);
    return stream;
  });
  const after = await loadChannelContext(svc, svc.store.db);
  const fresh = after.streams.find((s) => s.id === stream.id)!;
  const subsBefore = new Set(before.subscribers.get(stream.id) ?? []);
  const viewersBefore = new Set(unarchived ? [] : metadataViewers(stream, before.users, subsBefore, before.groups));
  const viewersAfter = metadataViewers(fresh, after.users, new Set(after.subscribers.get(stream.id) ?? []), after.groups);
  const afterSet = new Set(viewersAfter);
  const lost = [...viewersBefore].filter((id) => !afterSet.has(id));
  const gained = viewersAfter.filter((id) => !viewersBefore.has(id));
  const kept = viewersAfter.filter((id) => viewersBefore.has(id));
  // Still archived (a privacy change): clients without archived_channels hear nothing of it.
  const options = unarchived ? undefined : archivedStreamMeta(fresh);
  if (lost.length) svc.bus.send({ type: 'stream', op: 'delete', streams: [formatStream(stream, before)], stream_ids: [stream.id] }, lost, options);
  if (unarchived) {
    // Clients declaring archived_channels learn it by an update; others see the channel appear.
    const ev: ZulipEvent = { type: 'stream', op: 'update', stream_id: stream.id, name: fresh.name, property: 'is_archived', value: false };
    svc.bus.send(ev, viewersAfter, { meta: { withoutArchivedChannels: { type: 'stream', op: 'create', streams: [formatStream(fresh, after)] } } });
  } else if (gained.length) {
    svc.bus.send({ type: 'stream', op: 'create', streams: [formatStream(fresh, after)] }, gained, options);
  }
  const name = events.find((e) => e.property === 'name') ? stream.name : fresh.name;
  for (const e of events) {
    svc.bus.send({ type: 'stream', op: 'update', stream_id: stream.id, name: e.property === 'name' ? name : fresh.name, property: e.property, value: e.value, ...(e.extra ?? {}) }, unarchived ? viewersAfter : kept, options);
  }
  if (defaultChanged) await sendDefaultStreamsEvent(svc);
  const changed = new Set(events.map((e) => e.property));
  if (unarchived) changed.add('is_archived');
  await channelChangedNotices(svc, user, stream, fresh, changed);
}
