/**
 * Files to the server as Zulip's web app sends them: over the tus protocol
 * (/api/v1/tus, resumable, with the web session), so that the compose box can
 * show how far each upload is and cancel it. The server answers the last
 * request with the file's `url` and `filename`, as Zulip's does.
 *
 * Nothing about an upload is kept in the browser's storage (tus-js-client
 * would otherwise keep each file's fingerprint in localStorage, readable
 * after logging out); an upload interrupted by the network resumes from
 * where it was while the page is open (the client asks the server how much
 * arrived, then sends the rest). tus-js-client is loaded with the first
 * upload: most visits upload nothing.
 */
import type { DetailedError, Upload } from 'tus-js-client';

export const TUS_ENDPOINT = '/api/v1/tus';

export interface Uploaded {
  url: string;
  filename: string;
}

/** An upload under way: its result, and a way to cancel it (the server drops what it has). */
export interface ResumableUpload {
  done: Promise<Uploaded>;
  cancel(): void;
}

/** Raised when an upload was cancelled (not a failure to tell the user about). */
export class UploadCancelled extends Error {}

/** The server's words for a refused upload (`{"message": …}` from the upload service, `{"msg": …}` from the API), if it said any. */
function refusal(err: Error): string | null {
  const response = (err as Partial<DetailedError>).originalResponse;
  if (!response) return null;
  try {
    const body = JSON.parse(response.getBody()) as { message?: unknown; msg?: unknown };
    const said = body.message ?? body.msg;
    return typeof said === 'string' && said ? said : null;
  } catch {
    return null;
  }
}

/** Sends one file; `onProgress` hears the bytes sent so far and the file's size. */
export function uploadResumable(file: File, onProgress: (sent: number, total: number) => void): ResumableUpload {
  let cancelled = false;
  let settle!: { resolve(u: Uploaded): void; reject(err: Error): void };
  const done = new Promise<Uploaded>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const failed = () => new Error(`Failed to upload ${file.name}`);
  let upload: Upload | undefined;
  const start = (tus: typeof import('tus-js-client')): void => {
    if (cancelled) return;
    upload = new tus.Upload(file, {
      endpoint: TUS_ENDPOINT,
      metadata: { filename: file.name, filetype: file.type },
      storeFingerprintForResuming: false,
      // Network failures are retried (resuming the upload) after these pauses; refusals are not.
      retryDelays: [0, 1000, 3000, 5000],
      onShouldRetry: (err) => {
        const status = err.originalResponse?.getStatus() ?? 0;
        return !cancelled && (status === 0 || status === 409 || status === 423 || status >= 500);
      },
      onProgress,
      onSuccess: ({ lastResponse }) => {
        try {
          const body = JSON.parse(lastResponse.getBody()) as Partial<Uploaded>;
          if (typeof body.url !== 'string') throw failed();
          settle.resolve({ url: body.url, filename: typeof body.filename === 'string' ? body.filename : file.name });
        } catch {
          settle.reject(failed());
        }
      },
      onError: (err) => settle.reject(cancelled ? new UploadCancelled() : new Error(refusal(err) ?? failed().message)),
    });
    upload.start();
  };
  import('tus-js-client').then(start, () => settle.reject(failed()));
  return {
    done,
    cancel() {
      if (cancelled) return;
      cancelled = true;
      settle.reject(new UploadCancelled());
      // Stops sending and asks the server to drop what it has of the file.
      void upload?.abort(true).catch(() => {});
    },
  };
}
