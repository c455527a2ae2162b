/**
 * Client devices (POST /register_client_device, /remove_client_device; Zulip
 * FL 468/470): the `device_id` a logged-in app later names in
 * /mobile_push/register, with `device` events and the `devices` /register
 * section. And the legacy push token routes (POST/DELETE
 * /users/me/apns_device_token and /users/me/android_gcm_reg_id): tokens are
 * stored and removable; no push service is configured, so nothing is sent.
 */
import { lockUserRowsOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import { transaction } from '../store/db.ts';
import { badRequest } from '../lib/errors.ts';
import { nowSeconds } from '../lib/util.ts';
import type { UserRow } from '../store/users.ts';
import { clientDeviceOf, clientDevicesOf, deleteClientDevice, deletePushToken, insertClientDevice, TOKEN_KIND, upsertPushToken } from '../store/devices.ts';

/** A device's push registration state: nothing registered (no push service). */
const emptyDevice = () => ({
  push_key_id: null,
  push_token_id: null,
  pending_push_token_id: null,
  push_token_last_updated_timestamp: null,
  push_registration_error_code: null,
});

export async function registerClientDevice(svc: Services, user: UserRow): Promise<{ device_id: number }> {
  const id = await transaction(svc.store, (tx) => insertClientDevice(tx, user.id, nowSeconds()));
  svc.bus.send({ type: 'device', op: 'add', device_id: id }, [user.id]);
  return { device_id: id };
}

export async function removeClientDevice(svc: Services, user: UserRow, deviceId: number): Promise<void> {
  await transaction(svc.store, async (tx) => {
    if (!(await clientDeviceOf(tx, user.id, deviceId))) throw badRequest('Invalid `device_id`');
    await deleteClientDevice(tx, deviceId);
  });
  svc.bus.send({ type: 'device', op: 'remove', device_id: deviceId }, [user.id]);
}

/** Whether the device ID names one of the user's registered devices. */
export async function ownsClientDevice(svc: Services, user: UserRow, deviceId: number): Promise<boolean> {
  return !!(await clientDeviceOf(svc.store.db, user.id, deviceId));
}

/** The `devices` /register section: device ID -> its push registration state. */
export async function registerDevicesState(svc: Services, user: UserRow): Promise<Record<string, ReturnType<typeof emptyDevice>>> {
  const out: Record<string, ReturnType<typeof emptyDevice>> = {};
  for (const d of await clientDevicesOf(svc.store.db, user.id)) out[String(d.id)] = emptyDevice();
  return out;
}

function requireHuman(user: UserRow): void {
  if (user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
}

/** Zulip's validate_token: a non-empty token of at most 4096 characters; APNs tokens must be hex or Base64. */
function validateToken(token: string, kind: number): void {
  if (token === '' || token.length > 4096) throw badRequest('Empty or invalid length token');
  if (kind === TOKEN_KIND.APNS && !/^[0-9a-fA-F]+$/.test(token) && !/^[A-Za-z0-9+/]+={0,2}$/.test(token)) throw badRequest('Invalid APNS token');
}

export async function addPushToken(svc: Services, user: UserRow, kind: 'apns' | 'fcm', token: string, appId: string | undefined): Promise<void> {
  requireHuman(user);
  const k = kind === 'apns' ? TOKEN_KIND.APNS : TOKEN_KIND.FCM;
  validateToken(token, k);
  if (kind === 'apns' && (appId === undefined || !/^[.a-zA-Z0-9-]+$/.test(appId))) throw badRequest('Invalid app ID');
  await transaction(svc.store, async (tx) => {
    // A device registering twice at once stores its token once (PostgreSQL).
    await lockUserRowsOf(svc.store, tx, user.id);
    await upsertPushToken(tx, { userId: user.id, kind: k, token, iosAppId: kind === 'apns' ? appId! : null, now: nowSeconds() });
  });
}

export async function removePushToken(svc: Services, user: UserRow, kind: 'apns' | 'fcm', token: string): Promise<void> {
  requireHuman(user);
  const k = kind === 'apns' ? TOKEN_KIND.APNS : TOKEN_KIND.FCM;
  validateToken(token, k);
  const removed = await transaction(svc.store, (tx) => deletePushToken(tx, user.id, k, token));
  if (!removed) throw badRequest('Token does not exist');
}
