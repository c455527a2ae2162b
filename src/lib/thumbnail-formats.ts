/**
 * The thumbnails made of uploaded images (Zulip's THUMBNAIL_OUTPUT_FORMATS
 * and TRANSCODED_IMAGE_FORMAT): their names are the last part of
 * `/user_uploads/thumbnail/<path_id>/<name>`, and the list is
 * `server_thumbnail_formats` in /register. Shared by the upload action, the
 * renderer (which links the default one) and the file route. An image of a
 * type browsers do not show (TIFF) also gets a large still webp, the
 * "transcoded image".
 */
import { INLINE_MIME_TYPES } from './mime-types.ts';

export interface ThumbnailFormat {
  name: string;
  max_width: number;
  max_height: number;
  format: string;
  animated: boolean;
}

function format(maxWidth: number, maxHeight: number, animated: boolean): ThumbnailFormat {
  return { name: `${maxWidth}x${maxHeight}${animated ? '-anim' : ''}.webp`, max_width: maxWidth, max_height: maxHeight, format: 'webp', animated };
}

/** What every thumbnailed image gets (the animated one only when the image has several frames); the first of each kind is the one messages link. */
export const THUMBNAIL_FORMATS: readonly ThumbnailFormat[] = [format(840, 560, true), format(840, 560, false)];

/** The transcoded image of an image browsers cannot show, landscape or portrait like the image. */
export function transcodedFormat(width: number, height: number): ThumbnailFormat {
  return width >= height ? format(4032, 3024, false) : format(3024, 4032, false);
}

/** What is known of an uploaded image: its size as shown (after EXIF rotation), its frame count and type. */
export interface UploadImageInfo {
  width: number;
  height: number;
  frames: number;
  contentType: string;
}

/** The thumbnails made of an image: the animated formats only for an animated one, the transcoded image for a type browsers cannot show. */
export function formatsFor(info: UploadImageInfo): ThumbnailFormat[] {
  const out = THUMBNAIL_FORMATS.filter((f) => !f.animated || info.frames > 1);
  if (!INLINE_MIME_TYPES.has(info.contentType)) out.push(transcodedFormat(info.width, info.height));
  return out;
}

/** The thumbnail messages link: the first format whose animation matches the image's. */
export function defaultFormat(info: UploadImageInfo): ThumbnailFormat {
  const animated = info.frames > 1;
  return THUMBNAIL_FORMATS.find((f) => f.animated === animated) ?? THUMBNAIL_FORMATS[0]!;
}

/** The transcoded image of `info`, if it has one (its name goes in data-transcoded-image). */
export function transcodedFor(info: UploadImageInfo): ThumbnailFormat | null {
  return INLINE_MIME_TYPES.has(info.contentType) ? null : transcodedFormat(info.width, info.height);
}

/** Parses a format name (`840x560.webp`, `840x560-anim.webp`); null when it is not one. */
export function parseFormatName(name: string): { width: number; height: number; animated: boolean; extension: string } | null {
  const m = /^(\d+)x(\d+)(-anim)?\.(\w+)$/.exec(name);
  return m ? { width: Number(m[1]), height: Number(m[2]), animated: m[3] !== undefined, extension: m[4]! } : null;
}

/**
 * The thumbnail to serve for a requested format name: that one when it was
 * made, else the closest made one (same animation, then nearest in size), as
 * a client with an outdated format list still gets an image. Null for a name
 * that is no format.
 */
export function chooseFormat(info: UploadImageInfo, requested: string): ThumbnailFormat | null {
  const want = parseFormatName(requested);
  if (!want) return null;
  const made = formatsFor(info);
  const exact = made.find((f) => f.name === requested);
  if (exact) return exact;
  const score = (f: ThumbnailFormat) => (f.animated === want.animated ? 0 : 1e12) + Math.abs(f.max_width * f.max_height - want.width * want.height);
  return made.reduce((best, f) => (score(f) < score(best) ? f : best));
}
