/** Passwords: hashing with Argon2id (the KDF Zulip uses too), and Zulip's strength rule. */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { lazyModule } from './lazy.ts';

const argon2 = lazyModule<typeof import('@node-rs/argon2')>('@node-rs/argon2');

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
 * characters take about 0.1 s, 1,000 about 14 s).
 *
 * zxcvbn runs in a process of its own for each check (password-guesses.js,
 * the password on its standard input), one check at a time: loading it and
 * its word lists takes about 150 ms and 30 MiB, which the server would
 * otherwise wait for at the first check and keep for its whole life (a
 * worker thread gave back even less of it), for something done rarely. A
 * check takes about 0.2 s.
 */
export async function passwordStrongEnough(password: string): Promise<boolean> {
  // In characters (code points), as Python's len().
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) return false;
  return (await oneAtATime(() => guesses(password))) >= PASSWORD_MIN_GUESSES;
}

const oneAtATime = pLimit(1);
const GUESSES_SCRIPT = fileURLToPath(new URL('./password-guesses.js', import.meta.url));

function guesses(password: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [GUESSES_SCRIPT], { timeout: 30_000 }, (err, stdout) => {
      const n = Number(stdout);
      if (err || !stdout || !Number.isFinite(n)) reject(new Error(`the password check failed: ${err?.message ?? stdout}`));
      else resolve(n);
    });
    // A child that ends before reading (it cannot start, say) fails through the callback; a write error here must not end the server.
    child.stdin!.on('error', () => {});
    child.stdin!.end(password);
  });
}

/** A password made for someone (the first owner's, the admin CLI's set-password): 16 random URL-safe characters. */
export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
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
