/**
 * Muting users: POST/DELETE /users/me/muted_users/{muted_user_id} and the
 * `muted_users` event to the muting user. Muting marks the muted user's
 * unread messages read for the muter (update_message_flags), and messages
 * muted users send later arrive read (see sendMessage), as in Zulip.
 * Messages are still delivered; clients hide them.
 */
import { lockUserRowsOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import { transaction, type Tx } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import { userById, type UserRow } from '../store/users.ts';
import { deleteMute, insertMute, isMuted, markSenderMessagesRead, mutesOf } from '../store/muted-users.ts';
import { noSuchUser } from './users-read.ts';
import { canAccessUser } from './user-access.ts';

/** Zulip's access_user_by_id_including_cross_realm with bots and deactivated users allowed (not for_admin). */
async function targetUser(svc: Services, tx: Tx, viewer: UserRow, id: number): Promise<UserRow> {
  const u = await userById(tx, svc.realmId, id);
  if (!u) throw noSuchUser();
  if (!(await canAccessUser(svc, viewer, u, tx))) throw badRequest('Insufficient permission');
  return u;
}

export async function muteUser(svc: Services, user: UserRow, mutedUserId: number): Promise<void> {
  if (mutedUserId === user.id) throw badRequest('Cannot mute self');
  const res = await transaction(svc.store, async (tx) => {
    await lockUserRowsOf(svc.store, tx, user.id);
    const target = await targetUser(svc, tx, user, mutedUserId);
    if (await isMuted(tx, user.id, target.id)) throw badRequest('User already muted');
    await insertMute(tx, user.id, target.id, Math.floor(Date.now() / 1000));
    const read = await markSenderMessagesRead(tx, user.id, target.id);
    return { read, mutes: await mutesOf(tx, user.id) };
  });
  if (res.read.length) {
    svc.bus.send({ type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages: res.read, all: false }, [user.id]);
  }
  svc.bus.send({ type: 'muted_users', muted_users: res.mutes }, [user.id]);
}

export async function unmuteUser(svc: Services, user: UserRow, mutedUserId: number): Promise<void> {
  const mutes = await transaction(svc.store, async (tx) => {
    await lockUserRowsOf(svc.store, tx, user.id);
    const target = await targetUser(svc, tx, user, mutedUserId);
    if (!(await isMuted(tx, user.id, target.id))) throw badRequest('User is not muted');
    await deleteMute(tx, user.id, target.id);
    return mutesOf(tx, user.id);
  });
  svc.bus.send({ type: 'muted_users', muted_users: mutes }, [user.id]);
}
