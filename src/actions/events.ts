/** Registering event queues and polling them (POST /register, GET/DELETE /events). */
import type { Services } from '../services.ts';
import { ApiError, badRequest, unauthorized } from '../lib/errors.ts';
import type { EventQueue, PollCancel } from '../events/queue.ts';
import { fetchInitialState, type RegisterOptions } from '../state/registry.ts';
import type { ZulipEvent } from '../events/types.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import { cachedRealm, cachedStreams } from './cache.ts';
import { resolveEventNarrow } from './narrow.ts';
import { FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../lib/version.ts';
import { spectatorAccessEnabled } from './users-read.ts';

const MAX_QUEUE_LIFESPAN_SECS = 7 * 24 * 60 * 60;
/** What `idle_queue_timeout: "mobile"` asks for: an app opened a few times a day finds its queue. */
const MOBILE_QUEUE_LIFESPAN_SECS = 12 * 60 * 60;

export interface RegisterInput extends RegisterOptions {
  eventTypes: string[] | null;
  fetchEventTypes: string[] | null;
  /** `idle_queue_timeout`: seconds, or "mobile"; null: not given. */
  idleQueueTimeout: number | 'mobile' | null;
  /** The older `queue_lifespan_secs` (0: not given); `idle_queue_timeout` wins over it. */
  queueLifespanSecs: number;
  clientName: string;
}

/** Seconds a queue may go unpolled: what the client asked for, at most 7 days, else the server's setting. */
function queueLifespan(svc: Services, input: RegisterInput): number {
  const asked = input.idleQueueTimeout === 'mobile' ? MOBILE_QUEUE_LIFESPAN_SECS : (input.idleQueueTimeout ?? input.queueLifespanSecs);
  return asked > 0 ? Math.min(asked, MAX_QUEUE_LIFESPAN_SECS) : svc.config.queueIdleSeconds;
}

/**
 * The narrow of a registration that asks for none: a bot's default events
 * channel, when it has one (Zulip's _default_narrow).
 */
async function defaultNarrow(svc: Services, user: UserRow): Promise<RegisterInput['narrow']> {
  const stream = user.default_events_register_stream_id === null ? undefined : (await cachedStreams(svc)).byId.get(user.default_events_register_stream_id);
  return stream ? [{ operator: 'stream', operand: stream.name, negated: false }] : [];
}

export async function registerQueue(svc: Services, asked: RegisterInput): Promise<Record<string, unknown>> {
  const input = asked.narrow.length ? { ...asked, narrow: await resolveEventNarrow(svc, svc.store.db, asked.narrow) } : { ...asked, narrow: await defaultNarrow(svc, asked.user) };
  if (input.allPublicStreams && input.user.role === ROLE.GUEST) throw new ApiError('User not authorized for this query');
  // The queue exists before state is read, so no event committed meanwhile is missed.
  const lifespan = queueLifespan(svc, input);
  const queue = await svc.queues.create({
    userId: input.user.id,
    eventTypes: input.eventTypes ? new Set(input.eventTypes) : null,
    clientCapabilities: input.clientCapabilities,
    applyMarkdown: input.applyMarkdown,
    clientGravatar: input.clientGravatar,
    slimPresence: input.slimPresence,
    allPublicStreams: input.allPublicStreams,
    narrow: input.narrow,
    lifespanSeconds: lifespan,
    clientName: input.clientName,
  });
  const fetchTypes = input.fetchEventTypes ?? input.eventTypes;
  let state: Record<string, unknown>;
  try {
    state = await fetchInitialState(svc, input, fetchTypes ? new Set(fetchTypes) : null);
  } catch (e) {
    await svc.queues.delete(queue.id);
    throw e;
  }
  return {
    queue_id: queue.id,
    last_event_id: -1,
    idle_queue_timeout_secs: lifespan,
    zulip_version: ZULIP_VERSION,
    zulip_feature_level: FEATURE_LEVEL,
    zulip_merge_base: ZULIP_MERGE_BASE,
    ...state,
  };
}

export interface SpectatorRegisterInput {
  applyMarkdown: boolean;
  /** null: not given (false for a spectator). */
  clientGravatar: boolean | null;
  includeSubscribers: boolean | 'partial';
  clientCapabilities: Record<string, boolean>;
  eventTypes: string[] | null;
  fetchEventTypes: string[] | null;
}

/**
 * The stand-in user of a spectator's state, as Zulip's: a guest (most guest
 * restrictions apply to logged-out visitors too) with ID 0, which no user
 * has, default settings but the organization's language and Recent
 * conversations as the home view.
 */
function spectatorStandIn(svc: Services, language: string): UserRow {
  return {
    id: 0,
    realm_id: svc.realmId,
    email: 'username@example.com',
    delivery_email: 'username@example.com',
    full_name: 'Anonymous User',
    password_hash: null,
    api_key: '',
    role: ROLE.GUEST,
    is_active: 1,
    is_bot: 0,
    bot_type: null,
    bot_owner_id: null,
    date_joined: 0,
    timezone: '',
    avatar_source: 'G',
    avatar_version: 1,
    is_imported_stub: 0,
    joins_on_first_login: 0,
    settings_json: JSON.stringify({ default_language: language, web_home_view: 'recent' }),
    default_sending_stream_id: null,
    default_events_register_stream_id: null,
    default_all_public_streams: 0,
    is_system_bot: 0,
    row_version: 0,
  };
}

/**
 * POST /register by a spectator (a logged-out visitor, where the
 * organization allows them; Zulip's do_events_register without a user): the
 * state a guest with default settings would get, web-public channels as its
 * subscriptions, nothing personal, and no event queue (queue_id null).
 */
export async function registerSpectator(svc: Services, input: SpectatorRegisterInput): Promise<Record<string, unknown>> {
  if (!(await spectatorAccessEnabled(svc))) throw unauthorized();
  if (input.clientGravatar === true) throw badRequest("Invalid 'client_gravatar' parameter for anonymous request");
  if (input.includeSubscribers !== false) throw badRequest("Invalid 'include_subscribers' parameter for anonymous request");
  const language = String((await cachedRealm(svc)).settings.default_language);
  const opts: RegisterOptions = {
    user: spectatorStandIn(svc, language),
    spectator: true,
    applyMarkdown: input.applyMarkdown,
    clientGravatar: false,
    slimPresence: true,
    includeSubscribers: false,
    allPublicStreams: false,
    clientCapabilities: input.clientCapabilities,
    narrow: [],
    presenceHistoryLimitDays: null,
  };
  const fetchTypes = input.fetchEventTypes ?? input.eventTypes;
  const state = await fetchInitialState(svc, opts, fetchTypes ? new Set(fetchTypes) : null);
  return { queue_id: null, zulip_version: ZULIP_VERSION, zulip_feature_level: FEATURE_LEVEL, zulip_merge_base: ZULIP_MERGE_BASE, ...state };
}

export function badQueue(queueId: string): ApiError {
  return new ApiError(`Bad event queue ID: ${queueId}`, { code: 'BAD_EVENT_QUEUE_ID', extra: { queue_id: queueId } });
}

export async function accessQueue(svc: Services, user: UserRow, queueId: string): Promise<EventQueue> {
  const q = await svc.queues.get(queueId);
  if (!q || q.userId !== user.id) throw badQueue(queueId);
  return q;
}

/**
 * GET /events. As Zulip: last_event_id is required with a queue; it may not
 * be older than an acknowledgement already made, nor name an event the
 * queue never held. `signal` aborts when the client disconnects mid-poll.
 */
export async function getEvents(
  svc: Services,
  user: UserRow,
  queueId: string,
  lastEventId: number | undefined,
  dontBlock: boolean,
  signal?: PollCancel,
): Promise<ZulipEvent[]> {
  if (lastEventId === undefined) throw badRequest("Missing 'last_event_id' argument");
  await accessQueue(svc, user, queueId);
  const r = await svc.queues.poll(queueId, { lastEventId, dontBlock, heartbeatSeconds: svc.config.heartbeatSeconds, signal });
  switch (r.kind) {
    case 'events':
      return r.events;
    case 'missing':
      throw badQueue(queueId);
    case 'pruned':
      throw badRequest(`An event newer than ${lastEventId} has already been pruned!`);
    case 'not_in_queue':
      throw badRequest(`Event ${lastEventId} was not in this queue`);
  }
}

export async function deleteQueue(svc: Services, user: UserRow, queueId: string): Promise<void> {
  await accessQueue(svc, user, queueId);
  await svc.queues.delete(queueId);
}
