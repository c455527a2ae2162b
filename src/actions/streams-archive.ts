/** Archiving a channel (DELETE /streams/{stream_id}) and the queue filter for archived-channel events. */
import { channelArchivedNotice } from './channel-notices.ts';
import { cachedGroups } from './cache.ts';
import type { Services } from '../services.ts';
import { transaction } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import type { UserRow } from '../store/users.ts';
import { streamById, updateStream } from '../store/streams.ts';
import type { QueueFilter } from '../events/queue.ts';
import type { DeliveryOptions } from '../events/types.ts';
import { canAdministerChannel, metadataViewers, streamAccess } from './access.ts';
import { formatStream, loadChannelContext } from './streams-format.ts';
import { sendDefaultStreamsEvent } from './streams-default.ts';

/**
 * Queue filter for stream events: archiving/unarchiving reaches clients
 * without archived_channels as another event, and other events about an
 * archived channel (withoutArchivedChannels null) do not reach them.
 */
export const streamEventFilter: QueueFilter = (q, event, meta) =>
  meta.withoutArchivedChannels !== undefined && !q.opts.clientCapabilities.archived_channels ? meta.withoutArchivedChannels : event;

/**
 * Queue filter for subscription events: clients without archived_channels
 * know no archived channel, so their copy leaves out the archived ones
 * (meta.archivedStreamIds), and is dropped when none is left.
 */
export const subscriptionEventFilter: QueueFilter = (q, event, meta) => {
  const archived = meta.archivedStreamIds;
  if (!archived?.length || q.opts.clientCapabilities.archived_channels) return event;
  const hidden = new Set(archived);
  if (Array.isArray(event.stream_ids)) {
    const ids = (event.stream_ids as number[]).filter((id) => !hidden.has(id));
    return ids.length ? { ...event, stream_ids: ids } : null;
  }
  if (Array.isArray(event.subscriptions)) {
    const subs = (event.subscriptions as Array<{ stream_id: number }>).filter((s) => !hidden.has(s.stream_id));
    return subs.length ? { ...event, subscriptions: subs } : null;
  }
  return typeof event.stream_id === 'number' && hidden.has(event.stream_id) ? null : event;
};

/** Delivery options for subscription events about these channels: the archived ones are left out for clients without archived_channels. */
export function archivedSubscriptionsMeta(streams: Array<{ id: number; is_archived: number }>): DeliveryOptions | undefined {
  const archived = streams.filter((s) => s.is_archived).map((s) => s.id);
  return archived.length ? { meta: { archivedStreamIds: archived } } : undefined;
}

/** Delivery options for a stream event about this channel: none for clients without archived_channels when it is archived. */
export function archivedStreamMeta(stream: { is_archived: number }): DeliveryOptions | undefined {
  return stream.is_archived ? { meta: { withoutArchivedChannels: null } } : undefined;
}

/** DELETE /streams/{stream_id}: archives the channel (subscriptions are kept, as Zulip 10+). */
export async function archiveChannel(svc: Services, user: UserRow, streamId: number): Promise<void> {
  const before = await loadChannelContext(svc, svc.store.db);
  const stream = await transaction(svc.store, async (tx) => {
    const groups = await cachedGroups(svc, tx);
    const stream = await streamById(tx, svc.realmId, streamId);
    if (!stream) throw badRequest('Invalid channel ID');
    const access = streamAccess(user, stream, (before.subscribers.get(stream.id) ?? []).includes(user.id), groups);
    if (!access.metadata) throw badRequest('Invalid channel ID');
    if (!canAdministerChannel(user, stream, groups)) throw badRequest('You do not have permission to administer this channel.');
    if (stream.is_archived) throw badRequest('Channel is already deactivated');
    await updateStream(tx, stream.id, { is_archived: 1, is_default: 0 });
    return stream;
  });
  const viewers = metadataViewers(stream, before.users, new Set(before.subscribers.get(stream.id) ?? []), before.groups);
  const archived = { ...stream, is_archived: 1, is_default: 0 };
  svc.bus.send(
    {
      type: 'stream',
      op: 'update',
      stream_id: stream.id,
      name: stream.name,
      property: 'is_archived',
      value: true,
    },
    viewers,
    { meta: { withoutArchivedChannels: { type: 'stream', op: 'delete', streams: [formatStream(archived, before)], stream_ids: [stream.id] } } },
  );
  if (stream.is_default) await sendDefaultStreamsEvent(svc);
  await channelArchivedNotice(svc, archived);
}
