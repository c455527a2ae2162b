/**
 * Uploads into a text being written (the compose box, a message's edit), as
 * Zulip's web app makes them: a placeholder `[Uploading name…]()` where the
 * link will go, a banner per file saying so with a bar of how much is sent
 * and Cancel, and then the link, `[name](/user_uploads/…)` (or Zulip's media
 * syntax `![name](…)` for audio the server plays). Files go over tus
 * (`web/src/uploads.ts`); a file over the server's limit, or any file where
 * uploads are off, is refused before anything is sent.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChild } from 'preact';
import { model } from '../model.ts';
import { uploadResumable, UploadCancelled } from '../uploads.ts';

/** Audio types the server renders as a player in media syntax (Zulip's AUDIO_INLINE_MIME_TYPES). */
const PLAYABLE_AUDIO_TYPES = new Set(['audio/aac', 'audio/flac', 'audio/mp4', 'audio/mpeg', 'audio/wav', 'audio/webm']);

/** A file being uploaded. */
interface UnderWay {
  id: number;
  name: string;
  sent: number;
  total: number;
  /** The user's Cancel: the upload stopped, its placeholder gone. */
  cancel(): void;
  /** Only the upload stopped (the text is going away). */
  stop(): void;
}
let nextId = 1;

export interface Uploads {
  /** Starts uploading these files into the text. */
  uploadFiles(files: FileList | File[]): void;
  /** How many are under way (nothing should be sent or saved meanwhile: their links are not in yet). */
  count: number;
  /** Their banners. */
  banners: ComponentChild;
}

/**
 * The uploads of one text: `update` changes the text, `onError` says why a
 * file did not make it, `focus` goes back to the text after a Cancel. Uploads
 * still under way when the text goes away (the edit closed) are cancelled.
 */
export function useUploads({ update, onError, focus }: { update(change: (text: string) => string): void; onError(message: string): void; focus(): void }): Uploads {
  const [underWay, setUnderWay] = useState<UnderWay[]>([]);
  const current = useRef(underWay);
  current.current = underWay;
  useEffect(() => () => current.current.forEach((u) => u.stop()), []);

  function uploadFiles(files: FileList | File[]): void {
    const maxMib = Number(model.realm.max_file_upload_size_mib ?? 0);
    if (maxMib === 0) {
      onError('File and image uploads have been disabled for this organization.');
      return;
    }
    for (const file of Array.from(files)) {
      if (file.size > maxMib * 1024 * 1024) {
        onError(`${file.name} exceeds the maximum file size for attachments (${maxMib} MB).`);
        continue;
      }
      const placeholder = `[Uploading ${file.name}…]()`;
      update((text) => (text && !/\s$/.test(text) ? text + ' ' : text) + placeholder);
      const id = nextId++;
      const started = uploadResumable(file, (sent, total) => setUnderWay((list) => list.map((u) => (u.id === id ? { ...u, sent, total } : u))));
      const cancel = () => {
        started.cancel();
        update((text) => text.replace(placeholder, ''));
        focus();
      };
      setUnderWay((list) => [...list, { id, name: file.name, sent: 0, total: file.size, cancel, stop: started.cancel }]);
      started.done
        .then(
          (r) => {
            // Brackets would end the link text early; Zulip's web app leaves them out too.
            const name = r.filename.replaceAll('[', '').replaceAll(']', '');
            const media = PLAYABLE_AUDIO_TYPES.has(file.type.split(';', 1)[0]!.trim().toLowerCase()) ? '!' : '';
            update((text) => text.replace(placeholder, `${media}[${name}](${r.url})`));
          },
          (err: unknown) => {
            if (err instanceof UploadCancelled) return;
            update((text) => text.replace(placeholder, ''));
            onError(err instanceof Error ? err.message : `Failed to upload ${file.name}`);
          },
        )
        .finally(() => setUnderWay((list) => list.filter((u) => u.id !== id)));
    }
  }

  const banners = underWay.map((u) => (
    <div key={u.id} class="compose-banner upload-banner" role="status">
      <div class="upload-progress" role="progressbar" aria-label={`Upload of ${u.name}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={u.total ? Math.round((100 * u.sent) / u.total) : 0}>
        <div style={{ width: `${u.total ? (100 * u.sent) / u.total : 0}%` }} />
      </div>
      <span>Uploading {u.name}…</span>
      <button type="button" class="btn small" aria-label={`Cancel upload of ${u.name}`} onClick={u.cancel}>
        Cancel
      </button>
    </div>
  ));
  return { uploadFiles, count: underWay.length, banners };
}

/** The paperclip: picks files to upload (`inputLabel` names the file input, `buttonLabel` the button). */
export function UploadButton({ inputLabel, buttonLabel, onFiles }: { inputLabel: string; buttonLabel: string; onFiles(files: File[]): void }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label={inputLabel}
        onChange={(e) => {
          const files = e.currentTarget.files;
          if (files?.length) onFiles(Array.from(files));
          e.currentTarget.value = '';
        }}
      />
      <button type="button" class="icon-btn" aria-label={buttonLabel} title={`${buttonLabel} (or drop them here)`} onClick={() => input.current?.click()}>
        <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true">
          <path d="M13.5 6.5l-5.8 5.8a1.5 1.5 0 0 0 2.1 2.1l6-6a3 3 0 0 0-4.2-4.2l-6 6a4.5 4.5 0 0 0 6.4 6.4l5-5" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" />
        </svg>
      </button>
    </>
  );
}
