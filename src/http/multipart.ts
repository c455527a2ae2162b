/**
 * multipart/form-data bodies (file uploads, and clients such as zulip-js that
 * send every POST this way): text fields become parameters exactly like
 * form-encoded ones; file parts are collected with a size limit. Truncation
 * is an error, never silent.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Busboy } from '@fastify/busboy';
import { ApiError } from '../lib/errors.ts';
import { fileTooLargeMessage, type UploadedFile } from '../lib/uploaded-file.ts';

export type { UploadedFile };

const MAX_FIELD_BYTES = 1024 * 1024;

export function parseMultipart(
  headers: IncomingHttpHeaders,
  body: NodeJS.ReadableStream,
  maxFileBytes: number,
): Promise<{ fields: Map<string, string>; files: UploadedFile[] }> {
  return new Promise((resolve, reject) => {
    let bb: ReturnType<typeof Busboy>;
    try {
      bb = Busboy({
        headers: headers as { 'content-type': string },
        limits: { fileSize: maxFileBytes, fieldSize: MAX_FIELD_BYTES, files: 20, fields: 1000 },
        defCharset: 'utf8',
      });
    } catch {
      reject(new ApiError('Malformed multipart body'));
      return;
    }
    const fields = new Map<string, string>();
    const files: UploadedFile[] = [];
    let failure: ApiError | null = null;
    const fail = (e: ApiError) => {
      failure ??= e;
    };
    bb.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
      if (valueTruncated) fail(new ApiError(`Parameter '${name}' is too large`));
      else fields.set(name, value);
    });
    bb.on('file', (field: string, stream: NodeJS.ReadableStream & { truncated?: boolean }, filename: string, _enc: string, mimetype: string) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => fail(new ApiError(fileTooLargeMessage(Math.floor(maxFileBytes / 1024 / 1024)))));
      stream.on('end', () => {
        if (!stream.truncated) files.push({ field, filename: (filename ?? '').replaceAll('\0', ''), mimetype: mimetype || 'application/octet-stream', data: Buffer.concat(chunks) });
      });
    });
    bb.on('partsLimit', () => fail(new ApiError('Too many parts in multipart body')));
    bb.on('filesLimit', () => fail(new ApiError('Too many files in multipart body')));
    bb.on('fieldsLimit', () => fail(new ApiError('Too many fields in multipart body')));
    bb.on('error', () => reject(new ApiError('Malformed multipart body')));
    bb.on('finish', () => (failure ? reject(failure) : resolve({ fields, files })));
    body.on('error', () => reject(new ApiError('Malformed multipart body')));
    body.pipe(bb);
  });
}
