/** `muted_users` in POST /register: the user's mutes as {id, timestamp}. */
import { feature, type StateProvider } from './registry.ts';
import { mutesOf } from '../store/muted-users.ts';

const provider: StateProvider = {
  types: ['muted_users'],
  async fetch(svc, opts) {
    return { muted_users: await mutesOf(svc.store.db, opts.user.id) };
  },
};

export default feature({
  state: [provider],
});
