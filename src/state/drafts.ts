/** `drafts` in POST /register: the user's synchronized drafts (Zulip's shape, newest edit first). */
import { registerState } from './registry.ts';
import { registerDrafts } from '../actions/drafts.ts';

registerState({
  types: ['drafts'],
  async fetch(svc, opts, wants) {
    return wants('drafts') ? { drafts: await registerDrafts(svc, opts.user) } : {};
  },
});
