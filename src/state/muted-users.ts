/** `muted_users` in POST /register: the user's mutes as {id, timestamp}. */
import { registerState } from './registry.ts';
import { mutesOf } from '../store/muted-users.ts';

registerState({
  types: ['muted_users'],
  async fetch(svc, opts) {
    return { muted_users: await mutesOf(svc.store.db, opts.user.id) };
  },
});
