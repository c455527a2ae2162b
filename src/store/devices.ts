/** Client devices (the IDs /mobile_push/register refers to) and legacy push tokens: the SQL. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { ClientDevicesTable } from './schema.ts';

export type ClientDeviceRow = Selectable<ClientDevicesTable>;

/** Zulip's PushDeviceToken kinds. */
export const TOKEN_KIND = { APNS: 1, FCM: 2 } as const;

export async function insertClientDevice(db: Tx, userId: number, now: number): Promise<number> {
  const r = await db.insertInto('client_devices').values({ user_id: userId, date_created: now }).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function clientDeviceOf(db: Tx, userId: number, id: number): Promise<ClientDeviceRow | undefined> {
  return db.selectFrom('client_devices').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

export async function deleteClientDevice(db: Tx, id: number): Promise<void> {
  await db.deleteFrom('client_devices').where('id', '=', id).execute();
}

export async function clientDevicesOf(db: Tx, userId: number): Promise<ClientDeviceRow[]> {
  return db.selectFrom('client_devices').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

/**
 * Stores a push token for the user. A token registered to another account
 * (another user logged in on the device before) moves to this one, as Zulip does.
 */
export async function upsertPushToken(db: Tx, v: { userId: number; kind: number; token: string; iosAppId: string | null; now: number }): Promise<void> {
  await db.deleteFrom('push_device_tokens').where('kind', '=', v.kind).where('token', '=', v.token).where('user_id', '!=', v.userId).execute();
  const existing = await db.selectFrom('push_device_tokens').select('id').where('user_id', '=', v.userId).where('kind', '=', v.kind).where('token', '=', v.token).executeTakeFirst();
  if (existing) {
    await db.updateTable('push_device_tokens').set({ last_updated: v.now, ios_app_id: v.iosAppId }).where('id', '=', existing.id).execute();
  } else {
    await db.insertInto('push_device_tokens').values({ user_id: v.userId, kind: v.kind, token: v.token, ios_app_id: v.iosAppId, last_updated: v.now }).execute();
  }
}

/** Deletes the user's token; false when there was none. */
export async function deletePushToken(db: Tx, userId: number, kind: number, token: string): Promise<boolean> {
  const r = await db.deleteFrom('push_device_tokens').where('user_id', '=', userId).where('kind', '=', kind).where('token', '=', token).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function pushTokensOf(db: Tx, userId: number): Promise<Array<{ kind: number; token: string; ios_app_id: string | null }>> {
  return db.selectFrom('push_device_tokens').select(['kind', 'token', 'ios_app_id']).where('user_id', '=', userId).orderBy('id').execute();
}
