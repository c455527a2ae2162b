/**
 * Initial state for POST /register. Each feature registers a provider for the
 * state types it owns; register asks the providers whose types the client
 * wants. Every state a provider returns must match the events the same
 * feature sends, so client state stays in step.
 */
import type { Services } from '../services.ts';
import type { UserRow } from '../store/users.ts';

export interface RegisterOptions {
  user: UserRow;
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

const providers: StateProvider[] = [];

export function registerState(provider: StateProvider): void {
  providers.push(provider);
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
