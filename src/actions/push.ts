/**
 * POST /mobile_push/register (spec §4.12, Zulip FL 468): E2EE push device
 * registration. Parley has no push notification service configured, so --
 * after Zulip's parameter checks, which come first -- every request gets
 * PUSH_SERVICE_NOT_CONFIGURED, as Zulip answers on such a server. Zulip's
 * order is: bots refused, parameter types, the push service, then the
 * device (check_device_id) and the field groups; so an unknown or foreign
 * `device_id` gets PUSH_SERVICE_NOT_CONFIGURED too.
 * /register and /server_settings say push notifications are disabled.
 *
 * The checks Zulip makes only on a configured server (the device, which
 * field groups were sent, the push key and token ID encodings) are kept in
 * checkRegistrationFields for the day a push service exists.
 */
import type { Services } from '../services.ts';
import { ApiError, badRequest, missingArgument } from '../lib/errors.ts';
import type { UserRow } from '../store/users.ts';

/** Whether this server can deliver push notifications (never, for now). */
export const PUSH_SERVICE_CONFIGURED = false;

export const TOKEN_KINDS = ['fcm', 'apns'] as const;

/** The raw request parameters (strings as sent; undefined when absent). */
export interface PushRegisterParams {
  device_id?: string;
  token_kind?: string;
  push_key?: string;
  push_key_id?: string;
  bouncer_public_key?: string;
  encrypted_push_registration?: string;
  token_id?: string;
}

export const pushServiceNotConfigured = (): ApiError =>
  new ApiError('Server is not configured to use push notification service.', { code: 'PUSH_SERVICE_NOT_CONFIGURED' });

function jsonInt(raw: string, name: string): number {
  let x: unknown;
  try {
    x = JSON.parse(raw);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
  if (typeof x !== 'number' || !Number.isInteger(x)) throw badRequest(`${name} is not an integer`);
  return x;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict RFC 4648 standard Base64 (no whitespace, correct padding), or undefined. */
export function decodeBase64Strict(s: string): Buffer | undefined {
  return BASE64.test(s) ? Buffer.from(s, 'base64') : undefined;
}

/** A push key: one byte naming the cryptosystem (0x31: secretbox) and its 32-byte key. */
export function checkPushKey(pushKey: string): Buffer {
  const bytes = decodeBase64Strict(pushKey);
  if (!bytes || bytes.length !== 33 || bytes[0] !== 0x31) throw badRequest('Invalid `push_key`');
  return bytes;
}

/** The token ID: the first 8 bytes of the SHA-256 of the provider token, Base64. */
export function checkTokenId(tokenId: string): Buffer {
  const bytes = decodeBase64Strict(tokenId);
  if (!bytes || bytes.length !== 8) throw badRequest('`token_id` is not Base64 encoded');
  return bytes;
}

/**
 * The checks Zulip makes on a configured server after the device lookup:
 * a complete group of push key fields, of token fields, or both; then the
 * encodings. Returns which kind of request it is.
 */
export function checkRegistrationFields(a: PushRegisterParams & { push_key_id_value?: number }): 'register' | 'rotate_key' | 'rotate_token' {
  const keyFields = a.push_key !== undefined && a.push_key_id !== undefined;
  const tokenFields = a.bouncer_public_key !== undefined && a.encrypted_push_registration !== undefined && a.token_id !== undefined && a.token_kind !== undefined;
  if (!keyFields && !tokenFields) throw badRequest('Missing parameters: must provide either all push key fields, all token fields, or both.');
  if (keyFields) checkPushKey(a.push_key!);
  if (tokenFields) checkTokenId(a.token_id!);
  return keyFields && tokenFields ? 'register' : keyFields ? 'rotate_key' : 'rotate_token';
}

export async function registerPushDevice(_svc: Services, user: UserRow, a: PushRegisterParams): Promise<void> {
  if (user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
  // Parameter types, in Zulip's declaration order.
  if (a.device_id === undefined) throw missingArgument('device_id');
  jsonInt(a.device_id, 'device_id');
  if (a.token_kind !== undefined && !TOKEN_KINDS.includes(a.token_kind as (typeof TOKEN_KINDS)[number])) throw badRequest('Invalid token_kind');
  if (a.push_key_id !== undefined) {
    const id = jsonInt(a.push_key_id, 'push_key_id');
    if (id < 0 || id > 0xffffffff) throw badRequest('Invalid push_key_id: Value error, Not a valid unsigned 32-bit integer');
  }
  if (!PUSH_SERVICE_CONFIGURED) throw pushServiceNotConfigured();
  checkRegistrationFields(a);
}
