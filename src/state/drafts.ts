/** `drafts` in POST /register: the user's synchronized drafts (Zulip's shape, newest edit first). */
import { feature, type StateProvider } from './registry.ts';
import { registerDrafts } from '../actions/drafts.ts';

const provider: StateProvider = {
  types: ['drafts'],
  async fetch(svc, opts, wants) {
    return wants('drafts') ? { drafts: await registerDrafts(svc, opts.user) } : {};
  },
};

export default feature({
  state: [provider],
});
