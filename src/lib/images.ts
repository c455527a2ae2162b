/**
 * Image processing for custom emoji, avatars and the organization's icon and
 * logo, through sharp (libvips), following Zulip's zerver/lib/thumbnail.py:
 * decode checks with Zulip's messages, emoji 64×64 (animated images keep
 * their frames, padded to a square, plus a still PNG of the first frame),
 * avatars and icons cropped to a centred square, logos fitted inside 800×100,
 * and the thumbnails of uploaded images.
 */
import type sharpFunction from 'sharp';
import type { Metadata, Sharp } from 'sharp';
import { lazyModule } from './lazy.ts';
import { ApiError } from './errors.ts';
import { formatsFor, type ThumbnailFormat, type UploadImageInfo } from './thumbnail-formats.ts';

/** sharp (libvips) is loaded on first use: most processes never process an image. */
const sharpModule = lazyModule<typeof sharpFunction>('sharp');

/** Zulip's BadImageError. */
export const badImage = (msg: string): ApiError => new ApiError(msg, { code: 'BAD_IMAGE' });

export const DEFAULT_EMOJI_SIZE = 64;
export const DEFAULT_AVATAR_SIZE = 100;
export const MEDIUM_AVATAR_SIZE = 500;
/** Zulip's MAX_EMOJI_GIF_FILE_SIZE_BYTES. */
export const MAX_EMOJI_IMAGE_BYTES = 128 * 1024;
/** Zulip's IMAGE_BOMB_TOTAL_PIXELS. */
const MAX_PIXELS = 90_000_000;

/** Formats Zulip both thumbnails and shows inline: the emoji formats it accepts. */
export const EMOJI_IMAGE_TYPES: Record<string, string> = {
  'image/avif': '.avif',
  'image/gif': '.gif',
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
};

/** Image types accepted for avatars, icons and logos (Zulip's THUMBNAIL_ACCEPT_IMAGE_TYPES). */
export const THUMBNAIL_ACCEPT_IMAGE_TYPES = new Set(['image/avif', 'image/gif', 'image/heic', 'image/jpeg', 'image/png', 'image/tiff', 'image/webp']);

type Format = 'avif' | 'gif' | 'jpeg' | 'png' | 'webp';
const FORMAT_OF_EXT: Record<string, Format> = { '.avif': 'avif', '.gif': 'gif', '.jpg': 'jpeg', '.png': 'png', '.webp': 'webp' };

/** An image's header: pages, the size of one page as stored, EXIF orientation; null when libvips cannot read it. */
async function readHeader(data: Buffer | string): Promise<{ pages: number; width: number; height: number; orientation?: number } | null> {
  let meta: Metadata;
  try {
    meta = await sharpModule()(data, { limitInputPixels: false }).metadata();
  } catch {
    return null;
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  return width && height ? { pages: meta.pages ?? 1, width, height, orientation: meta.orientation } : null;
}

/** Decodes the header (libvips_check_image): page count, or Zulip's errors. */
async function inspect(data: Buffer): Promise<{ pages: number; width: number; height: number }> {
  const header = await readHeader(data);
  if (!header) throw badImage('Could not decode image; did you upload an image file?');
  if (header.width * header.height > MAX_PIXELS) throw badImage('Image size exceeds limit.');
  return header;
}

/** Runs a sharp pipeline, turning a decode failure into Zulip's error. */
async function run(p: Sharp): Promise<Buffer> {
  try {
    return await p.toBuffer();
  } catch {
    throw badImage('Could not decode image; did you upload an image file?');
  }
}

/**
 * Zulip's resize_emoji: the emoji image in the format of `ext`, and for an
 * animated image a still PNG of its first frame.
 */
export async function resizeEmoji(data: Buffer, ext: string): Promise<{ image: Buffer; still: Buffer | null }> {
  if (data.length > MAX_EMOJI_IMAGE_BYTES) throw badImage('Image size exceeds limit.');
  const format = FORMAT_OF_EXT[ext] ?? 'png';
  const size = DEFAULT_EMOJI_SIZE;
  const { pages } = await inspect(data);
  if (pages <= 1) {
    return { image: await run(sharpModule()(data).resize(size, size, { fit: 'cover', position: 'centre' }).toFormat(format)), still: null };
  }
  const still = await run(sharpModule()(data).resize(size, size, { fit: 'cover', position: 'centre' }).png());
  // Every frame fitted inside the square and padded with transparency, so
  // cropping never cuts the animation.
  const image = await run(
    sharpModule()(data, { animated: true })
      .resize(size, size, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .toFormat(format),
  );
  return { image, still };
}

/** A centred square thumbnail as PNG (avatars, the organization icon). */
export async function squarePng(data: Buffer, size: number): Promise<Buffer> {
  await inspect(data);
  return run(sharpModule()(data).resize(size, size, { fit: 'cover', position: 'centre' }).png());
}

/** Zulip's resize_logo: fitted inside 8×100 by 100 without enlarging, as PNG. */
export async function logoPng(data: Buffer): Promise<Buffer> {
  await inspect(data);
  return run(sharpModule()(data).resize(8 * DEFAULT_AVATAR_SIZE, DEFAULT_AVATAR_SIZE, { fit: 'inside', withoutEnlargement: true }).png());
}

/** Zulip's IMAGE_MAX_ANIMATED_PIXELS: the first three frames of an animation may have at most this many pixels in all. */
const MAX_ANIMATED_PIXELS = MAX_PIXELS / 3;

/**
 * Zulip's maybe_thumbnail and thumbnail worker, at once: for an upload (its
 * bytes, or the path of its file) of an image type libvips reads, its size as shown (after EXIF rotation), frame
 * count and the thumbnails of `formatsFor` (fitted inside each format's
 * box, never enlarged, as webp). Null for a file that is not such an image,
 * is too large to decode, or fails to convert: it then gets no preview.
 */
export async function thumbnailUpload(
  data: Buffer | string,
  contentType: string,
): Promise<{ info: UploadImageInfo; thumbnails: Array<{ format: ThumbnailFormat; data: Buffer }> } | null> {
  if (!THUMBNAIL_ACCEPT_IMAGE_TYPES.has(contentType)) return null;
  const header = await readHeader(data);
  if (!header) return null;
  const { pages: frames, width: rawWidth, height: rawHeight, orientation } = header;
  if (frames <= 1 ? rawWidth * rawHeight > MAX_PIXELS : rawWidth * rawHeight * Math.min(3, frames) > MAX_ANIMATED_PIXELS) return null;
  const turned = orientation !== undefined && orientation >= 5 && orientation <= 8;
  const info: UploadImageInfo = { width: turned ? rawHeight : rawWidth, height: turned ? rawWidth : rawHeight, frames, contentType };
  const thumbnails: Array<{ format: ThumbnailFormat; data: Buffer }> = [];
  try {
    for (const format of formatsFor(info)) {
      const box = { fit: 'inside' as const, withoutEnlargement: true };
      const pipeline = format.animated
        ? sharpModule()(data, { animated: true, limitInputPixels: false }).resize(format.max_width, format.max_height, box)
        : sharpModule()(data, { limitInputPixels: false }).rotate().resize(format.max_width, format.max_height, box);
      thumbnails.push({ format, data: await pipeline.webp().toBuffer() });
    }
  } catch {
    return null;
  }
  return { info, thumbnails };
}
