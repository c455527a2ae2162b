/**
 * Features as the event system sees them. A feature (src/state/<name>.ts)
 * declares, together, its `/register` state providers and the queue filters
 * of the event types it sends; `src/state/index.ts` lists every feature and
 * installs them explicitly at start. Every state a provider returns must
 * match the events the same feature sends, so client state stays in step.
 */
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';
import type { EventQueue, QueueFilter } from '../events/queue.ts';
import type { EventMeta, EventType } from '../events/types.ts';

export interface RegisterOptions {
  /** The registering user; for a spectator, a stand-in: a guest with ID 0 and default settings (see spectatorStandIn). */
  user: UserRow;
  /**
   * A logged-out visitor (Zulip's user_profile None): providers leave out
   * everything personal and give the state a spectator may see.
   */
  spectator: boolean;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  slimPresence: boolean;
  includeSubscribers: boolean | 'partial';
  allPublicStreams: boolean;
  clientCapabilities: Record<string, boolean>;
  narrow: Array<{ operator: string; operand: unknown; negated: boolean }>;
  presenceHistoryLimitDays: number | null;
}

export interface StateProvider {
  /** The fetch_event_types names this provider answers for. */
  types: string[];
  fetch(svc: Services, opts: RegisterOptions, wants: (type: string) => boolean): Promise<Record<string, unknown>>;
}

export interface Feature {
  /** Its state providers for POST /register. */
  state?: StateProvider[];
  /** Per-queue shaping of the event types it sends (see QueueFilter). */
  filters?: Partial<Record<EventType, QueueFilter>>;
}

/** Declares a feature (a typed identity, for the declaration's checking). */
export const feature = (f: Feature): Feature => f;

let providers: StateProvider[] = [];

/** Installs the features: their state providers here, their filters on the server's queues. */
export function installFeatures(svc: Services, features: Feature[]): void {
  providers = features.flatMap((f) => f.state ?? []);
  for (const f of features) {
    for (const [type, filter] of Object.entries(f.filters ?? {})) svc.queues.setFilter(type, filter as QueueFilter);
  }
}

/** The empty topic as named for a client without the empty_topic_name capability. */
export function namedTopic(q: EventQueue, topic: unknown, meta: EventMeta): unknown {
  return topic === '' && meta.emptyTopicName !== undefined && !q.opts.clientCapabilities.empty_topic_name ? meta.emptyTopicName : topic;
}

export function knownStateTypes(): Set<string> {
  return new Set(providers.flatMap((p) => p.types));
}

export async function fetchInitialState(
  svc: Services,
  opts: RegisterOptions,
  fetchTypes: Set<string> | null,
): Promise<Record<string, unknown>> {
  const wants = (t: string): boolean => fetchTypes === null || fetchTypes.has(t);
  const state: Record<string, unknown> = {};
  for (const p of providers) {
    if (p.types.some(wants)) Object.assign(state, await p.fetch(svc, opts, wants));
  }
  return state;
}
