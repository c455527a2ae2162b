/**
 * POST /register sections for Zulip features Parley does not have yet.
 * Zulip clients (zulip-flutter, zulip-terminal) require these keys, and for
 * a server without the feature the empty value is the truth: none exist.
 * Each section answers the fetch_event_types name Zulip uses for it.
 */
import { feature, type StateProvider } from './registry.ts';

/** fetch_event_types name -> the state keys it adds, with their empty values (fresh per call). */
const EMPTY_SECTIONS: Record<string, () => Record<string, unknown>> = {
  // Allowed sign-up domains: none (realm_emails_restricted_to_domains is false).
  // Onboarding steps: Parley shows no onboarding hints, so none are pending.
  onboarding_steps: () => ({ onboarding_steps: [] }),
};

const provider: StateProvider = {
  types: Object.keys(EMPTY_SECTIONS),
  async fetch(_svc, _opts, wants) {
    const out: Record<string, unknown> = {};
    for (const [type, value] of Object.entries(EMPTY_SECTIONS)) if (wants(type)) Object.assign(out, value());
    return out;
  },
};

export default feature({
  state: [provider],
});
