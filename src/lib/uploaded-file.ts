/** A file received in a multipart request body. */
export interface UploadedFile {
  field: string;
  filename: string;
  mimetype: string;
  data: Buffer;
}

/** Zulip's message for a file over the server's upload limit (MAX_FILE_UPLOAD_SIZE_MIB; self-hosted wording). */
export function fileTooLargeMessage(maxMib: number): string {
  return `File is larger than this server's configured maximum upload size (${maxMib} MiB).`;
}
