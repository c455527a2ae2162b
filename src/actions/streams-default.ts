/** Default channels (new users join them): POST/DELETE /default_streams and the default_streams event. */
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { transaction } from '../store/db.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import { allStreams, streamById, updateStream } from '../store/streams.ts';
import { lockSettingsOf } from '../store/locks.ts';
import { accessStreamById } from './access.ts';
import { loadChannelContext } from './streams-format.ts';

// ---------------------------------------------------------------------------
// Default channels

export async function defaultStreamIds(svc: Services, db: Tx): Promise<number[]> {
  return (await allStreams(db, svc.realmId)).filter((s) => s.is_default && !s.is_archived).map((s) => s.id);
}

export async function sendDefaultStreamsEvent(svc: Services): Promise<void> {
  const ctx = await loadChannelContext(svc, svc.store.db);
  svc.bus.send(
    { type: 'default_streams', default_streams: await defaultStreamIds(svc, svc.store.db) },
    ctx.users.filter((u) => u.is_active).map((u) => u.id),
  );
}

/** POST/DELETE /default_streams. */
export async function setDefaultStream(svc: Services, user: UserRow, streamId: number, isDefault: boolean): Promise<void> {
  if (user.role > ROLE.ADMINISTRATOR) throw new ApiError('Must be an organization administrator', { code: 'UNAUTHORIZED_PRINCIPAL' });
  const changed = await transaction(svc.store, async (tx) => {
    // Under the channel's lock, read as committed: a change making it private at the same moment comes before or after.
    await lockSettingsOf(svc.store, tx, 'stream', streamId);
    await accessStreamById(svc, tx, user, streamId);
    const stream = await streamById(tx, svc.realmId, streamId);
    if (!stream) throw badRequest('Invalid channel ID');
    if (isDefault && stream.invite_only) throw badRequest('Private channels cannot be made default.');
    if (isDefault && stream.is_archived) throw badRequest('Archived channels cannot be made default.');
    if (!!stream.is_default === isDefault) return false;
    await updateStream(tx, streamId, { is_default: isDefault ? 1 : 0 });
    return true;
  });
  if (changed) await sendDefaultStreamsEvent(svc);
}
