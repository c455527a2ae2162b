/** Password hashing with Argon2id (the KDF Zulip uses too). */
import { lazyModule } from './lazy.ts';

const argon2 = lazyModule<typeof import('@node-rs/argon2')>('@node-rs/argon2');
// zxcvbn's dictionaries take about 12 MB of heap: loaded at the first password set.
const zxcvbn = lazyModule<typeof import('zxcvbn')>('zxcvbn');

/** Zulip's defaults (PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_GUESSES), sent in /register too. */
export const PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 100;
export const PASSWORD_MIN_GUESSES = 10000;

/**
 * Zulip's check_password_strength: at least PASSWORD_MIN_LENGTH characters
 * and at least PASSWORD_MIN_GUESSES guesses by zxcvbn's estimate, for every
 * way a password is set (sign-up, a user's own change, POST /users, the
 * admin CLI). Longer than PASSWORD_MAX_LENGTH is refused as well, as
 * Zulip's forms do: zxcvbn's time grows fast with the length (100 repeated
 * characters take about 0.1 s, 1,000 about 14 s), and it runs on the
 * request's thread.
 */
export function passwordStrongEnough(password: string): boolean {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) return false;
  return zxcvbn()(password).guesses >= PASSWORD_MIN_GUESSES;
}

export async function hashPassword(password: string): Promise<string> {
  return argon2().hash(password, { memoryCost: 19456, timeCost: 2, parallelism: 1 });
}

export async function checkPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) return false;
  try {
    return await argon2().verify(stored, password);
  } catch {
    return false;
  }
}
