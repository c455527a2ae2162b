/**
 * Resumable uploads at /api/v1/tus (the tus 1.0 protocol: core, creation,
 * creation-with-upload, termination), served by @tus/server with
 * @tus/file-store, as Zulip serves them through tusd and its hooks:
 *
 * - Every request but OPTIONS is authenticated like /user_uploads: HTTP Basic,
 *   else the web session (Zulip's web app uploads here with its session; a
 *   browser's Origin, when sent, must be this server). Without either: 401
 *   `{"message": "Unauthenticated upload"}`.
 * - Creation (POST) needs `Upload-Length` (deferred length: 411) within the
 *   server's upload limit (413 with Zulip's message), counted against the
 *   user's API rate limit. An upload's URL is `/api/v1/tus/<id>`; only its
 *   creator can resume (HEAD, PATCH) or terminate (DELETE) it; for anyone else
 *   it does not exist.
 * - When the last byte arrives, the file becomes an attachment exactly like
 *   POST /user_uploads (path, type, `attachment` event), and the final PATCH
 *   answers 200 with `{"url": "/user_uploads/...", "filename": ...}` (Zulip's
 *   pre-finish hook response), which is how the client learns the file's URL.
 *
 * Partial uploads live in $DATA_DIR/tus (0700) and are removed a day after
 * they were created if never finished.
 */
import type { IncomingMessage } from 'node:http';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Server as TusServer, Upload } from '@tus/server';
import type { FileStore } from '@tus/file-store';
import type { Services } from '../services.ts';
import { ApiError } from '../lib/errors.ts';
import { PRIVATE_DIR_MODE } from '../lib/private-files.ts';
import type { UserRow } from '../store/users.ts';
import { finishResumableUpload } from '../actions/uploads.ts';
import { fileTooLargeMessage } from '../lib/uploaded-file.ts';
import { authenticate, type AuthLimits } from './auth.ts';
import { checkOrigin, requestSession } from './web.ts';
import { lazyModule } from '../lib/lazy.ts';

// Loaded with the first resumable upload (or the first sweep): most processes never see one.
const tusServerModule = lazyModule<typeof import('@tus/server')>('@tus/server');
const tusFileStoreModule = lazyModule<typeof import('@tus/file-store')>('@tus/file-store');

export const TUS_PATH = '/api/v1/tus';
/** Unfinished uploads are removed this long after their creation. */
const EXPIRY_MS = 24 * 3600 * 1000;
const SWEEP_MS = 3600 * 1000;

/** A tus hook's way of refusing: this status and a JSON `{"message": ...}` body, as Zulip's hooks answer. */
function reject(status: number, message: string): { status_code: number; body: string } {
  return { status_code: status, body: JSON.stringify({ message }) };
}

/** The upload's creator: IDs are `<user id>-<random>`. */
function ownerOf(uploadId: string): number | null {
  const m = /^(\d+)-[0-9a-f]{32}$/.exec(uploadId);
  return m ? Number(m[1]) : null;
}

type TusRequest = { runtime?: { node?: { req: IncomingMessage } } };

export function registerTus(app: FastifyInstance, svc: Services, limits: AuthLimits): void {
  const directory = resolve(svc.config.dataDir, 'tus');
  mkdirSync(directory, { recursive: true, mode: PRIVATE_DIR_MODE });
  const callers = new WeakMap<IncomingMessage, UserRow>();
  const callerOf = (req: unknown): UserRow => {
    const raw = (req as TusRequest).runtime?.node?.req;
    const user = raw && callers.get(raw);
    if (!user) throw reject(401, 'Unauthenticated upload');
    return user;
  };
  const maxBytes = svc.config.maxFileUploadSizeMib * 1024 * 1024;
  let made: { store: FileStore; tus: TusServer } | undefined;
  /** The store and the tus server, made on first use. */
  const tusParts = (): { store: FileStore; tus: TusServer } => {
    if (made) return made;
    const { Server, ERRORS } = tusServerModule();
    // No expiration in the store itself: it would look the upload up again after
    // the finished file has moved to the uploads; stale partial uploads are swept below.
    const store = new (tusFileStoreModule().FileStore)({ directory });
    store.extensions = store.extensions.filter((e) => e !== 'expiration');
    const tus = new Server({
      path: TUS_PATH,
      datastore: store,
      relativeLocation: true,
      maxSize: maxBytes,
      // Browsers may only call it from this server's own pages (no cross-origin use).
      allowedOrigins: () => false,
      namingFunction: (req) => `${callerOf(req).id}-${randomBytes(16).toString('hex')}`,
      onIncomingRequest: async (req, uploadId) => {
        if (ownerOf(uploadId) !== callerOf(req).id) throw ERRORS.FILE_NOT_FOUND;
      },
      onUploadCreate: async (_req, upload) => {
        if (upload.sizeIsDeferred || upload.size === undefined) throw reject(411, 'SizeIsDeferred is not supported');
        return {};
      },
      onUploadFinish: async (req, upload: Upload) => {
        const user = callerOf(req);
        const body = await finishResumableUpload(svc, user, upload.storage?.path ?? resolve(directory, upload.id), upload.size ?? 0, upload.metadata ?? {});
        await store.configstore.delete(upload.id);
        // A creation request that carried the whole file keeps its 201 and Location.
        if (req.method === 'POST') return { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } };
        return { status_code: 200, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } };
      },
      onResponseError: (_req, err) => {
        if (err === ERRORS.ERR_MAX_SIZE_EXCEEDED) return reject(413, fileTooLargeMessage(svc.config.maxFileUploadSizeMib));
        return undefined;
      },
    });
    made = { store, tus };
    return made;
  };

  /** The caller, as for /user_uploads: HTTP Basic, else the web session; null when neither. */
  const caller = async (req: FastifyRequest): Promise<UserRow | null> => {
    if (req.headers.authorization !== undefined) {
      try {
        const user = await authenticate(svc, limits, req, true);
        if (user) return user;
      } catch (e) {
        // As Zulip's hook: credentials that fail fall back to the session.
        if (!(e instanceof ApiError) || e.status === 429) throw e;
      }
    }
    const session = await requestSession(svc, req);
    if (!session) return null;
    checkOrigin(svc, req);
    return session.user;
  };

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method !== 'OPTIONS') {
      const user = await caller(req);
      if (!user) {
        // Zulip's hook answer, not the API's error envelope.
        reply.hijack();
        const body = JSON.stringify({ message: 'Unauthenticated upload' });
        reply.raw.writeHead(401, { 'Tus-Resumable': '1.0.0', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        reply.raw.end(body);
        return;
      }
      if (req.method === 'POST') await limits.api.check(`user:${user.id}`);
      req.userId = user.id;
      callers.set(req.raw, user);
    }
    reply.hijack();
    await tusParts().tus.handle(req.raw, reply.raw);
  };

  app.register(async (scope) => {
    // The body is tus's to read, as a stream: no parser may consume it.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    for (const url of [TUS_PATH, `${TUS_PATH}/:upload_id`]) {
      scope.route({ method: ['OPTIONS', 'HEAD', 'POST', 'PATCH', 'DELETE'], url, handler });
    }
  });

  const sweep = setInterval(() => {
    removeStale(tusParts().store, Date.now() - EXPIRY_MS).catch((err: unknown) => svc.log.warn({ err }, 'removing stale partial uploads failed'));
  }, SWEEP_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
}

/** Removes the partial uploads created before `before` (ms since the epoch). */
export async function removeStale(store: FileStore, before: number): Promise<number> {
  let removed = 0;
  for (const id of (await store.configstore.list?.()) ?? []) {
    const info = await store.configstore.get(id);
    const created = info?.creation_date ? Date.parse(info.creation_date) : NaN;
    if (Number.isFinite(created) && created < before) {
      await store.remove(id).catch(() => {});
      removed++;
    }
  }
  return removed;
}
