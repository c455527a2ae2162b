/** Archiving a channel (DELETE /streams/{stream_id}) and the queue filter for archived-channel events. */
import { cachedGroups } from './cache.ts';
import type { Services } from '../services.ts';
import { transaction } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import type { UserRow } from '../store/users.ts';
import { streamById, updateStream } from '../store/streams.ts';
import type { QueueFilter } from '../events/queue.ts';
import { canAdministerChannel, metadataViewers, streamAccess } from './access.ts';
import { formatStream, loadChannelContext } from './streams-format.ts';
import { sendDefaultStreamsEvent } from './streams-default.ts';

/** Queue filter for stream events: archiving/unarchiving reaches clients without archived_channels as another event. */
export const streamEventFilter: QueueFilter = (q, event, meta) =>
  meta.withoutArchivedChannels && !q.opts.clientCapabilities.archived_channels ? meta.withoutArchivedChannels : event;

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
}
