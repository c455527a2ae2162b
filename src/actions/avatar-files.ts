/**
 * Public image files (Zulip's avatar storage): custom emoji, user avatars
 * and the organization's icon and logo, stored under $DATA_DIR/avatars and
 * served without authentication at /user_avatars/<path>.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { Services } from '../services.ts';

export const AVATARS_URL_PREFIX = '/user_avatars/';

function avatarsRoot(svc: Services): string {
  return resolve(svc.config.dataDir, 'avatars');
}

/** The file's location on disk; null for a path that would leave the folder. */
function filePath(svc: Services, path: string): string | null {
  const root = avatarsRoot(svc);
  const full = resolve(root, path);
  return full.startsWith(root + sep) ? full : null;
}

export async function writeAvatarFile(svc: Services, path: string, data: Buffer): Promise<void> {
  const full = filePath(svc, path);
  if (!full) throw new Error(`bad avatar path ${path}`);
  await mkdir(dirname(full), { recursive: true });
  await writeFile(full, data);
}

export async function readAvatarFile(svc: Services, path: string): Promise<Buffer | null> {
  const full = filePath(svc, path);
  if (!full) return null;
  try {
    return await readFile(full);
  } catch {
    return null;
  }
}

export async function removeAvatarFiles(svc: Services, paths: string[]): Promise<void> {
  for (const p of paths) {
    const full = filePath(svc, p);
    if (full) await rm(full, { force: true });
  }
}

const CONTENT_TYPES: Record<string, string> = {
  avif: 'image/avif',
  gif: 'image/gif',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
};

/** Content type by extension; originals (`.original`) are served as binary data. */
export function avatarContentType(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}
