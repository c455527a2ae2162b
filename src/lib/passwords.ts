/** Password hashing with Argon2id (the KDF Zulip uses too). */
import { lazyModule } from './lazy.ts';

const argon2 = lazyModule<typeof import('@node-rs/argon2')>('@node-rs/argon2');

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
