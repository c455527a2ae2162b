/**
 * Channel and subscription events when a user's access changes without a
 * subscription change (Zulip's send_stream_events_for_role_update and the
 * peer events of do_deactivate_user / do_reactivate_user):
 * - a role change: `stream` create (with `peer_add` of each channel's
 *   subscribers) for channels the user can now see, `stream` delete for those
 *   they no longer can;
 * - deactivation: `peer_remove` of the user from each of their channels, to
 *   the others who see its subscribers; reactivation: `peer_add`.
 */
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import { metadataViewers, streamAccess } from './access.ts';
import { formatStream, loadChannelContext, type ChannelContext } from './streams-format.ts';
import { archivedSubscriptionsMeta } from './streams-archive.ts';

function visibleStreamIds(ctx: ChannelContext, user: UserRow): Set<number> {
  const out = new Set<number>();
  for (const s of ctx.streams) {
    if (s.is_archived) continue;
    if (streamAccess(user, s, (ctx.subscribers.get(s.id) ?? []).includes(user.id), ctx.groups).metadata) out.add(s.id);
  }
  return out;
}

/** After a role change: `before` is the channel context and user row from before it. */
export async function sendRoleChangeStreamEvents(svc: Services, before: ChannelContext, userBefore: UserRow): Promise<void> {
  const after = await loadChannelContext(svc, svc.store.db);
  const userAfter = after.users.find((u) => u.id === userBefore.id);
  if (!userAfter || !userAfter.is_active) return;
  const old = visibleStreamIds(before, userBefore);
  const now = visibleStreamIds(after, userAfter);
  const gained = after.streams.filter((s) => now.has(s.id) && !old.has(s.id));
  const lost = before.streams.filter((s) => old.has(s.id) && !now.has(s.id));
  if (gained.length) {
    svc.bus.send({ type: 'stream', op: 'create', streams: gained.map((s) => formatStream(s, after)) }, [userAfter.id]);
    for (const s of gained) {
      const subs = after.subscribers.get(s.id) ?? [];
      if (subs.length) svc.bus.send({ type: 'subscription', op: 'peer_add', stream_ids: [s.id], user_ids: [...subs].sort((a, b) => a - b) }, [userAfter.id]);
    }
  }
  if (lost.length) {
    svc.bus.send({ type: 'stream', op: 'delete', streams: lost.map((s) => formatStream(s, before)), stream_ids: lost.map((s) => s.id) }, [userAfter.id]);
  }
}

/**
 * After a deactivation (`op` peer_remove, `before` loaded while the user was
 * active) or a reactivation (peer_add, from the current state): the
 * user's channels as others see their subscriber lists.
 */
export async function sendActivationPeerEvents(svc: Services, userId: number, op: 'peer_add' | 'peer_remove', before: ChannelContext | null): Promise<void> {
  const ctx = op === 'peer_remove' && before ? before : await loadChannelContext(svc, svc.store.db);
  for (const s of ctx.streams) {
    const subs = ctx.subscribers.get(s.id) ?? [];
    if (!subs.includes(userId)) continue;
    const viewers = metadataViewers(s, ctx.users, new Set(subs), ctx.groups).filter((id) => id !== userId);
    if (viewers.length) svc.bus.send({ type: 'subscription', op, stream_ids: [s.id], user_ids: [userId] }, viewers, archivedSubscriptionsMeta([s]));
  }
}
