/** Audio types browsers play inline (Zulip's AUDIO_INLINE_MIME_TYPES). */
export const AUDIO_INLINE_MIME_TYPES: ReadonlySet<string> = new Set(['audio/aac', 'audio/flac', 'audio/mp4', 'audio/mpeg', 'audio/wav', 'audio/webm']);

/**
 * Types a browser may show inline (Zulip's INLINE_MIME_TYPES): uploaded files
 * of these types are served inline, everything else as a download, and an
 * uploaded image of another type gets a transcoded copy. Types that could
 * run script (HTML, SVG, XML) are never among them.
 */
export const INLINE_MIME_TYPES: ReadonlySet<string> = new Set([
  ...AUDIO_INLINE_MIME_TYPES,
  'application/pdf',
  'image/apng',
  'image/avif',
  'image/gif',
  'image/jpeg',
  'image/png',
  'image/webp',
  'text/plain',
  'video/mp4',
  'video/webm',
]);
