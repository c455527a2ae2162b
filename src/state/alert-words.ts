/** `alert_words` in POST /register: the user's alert words. */
import { feature, type StateProvider } from './registry.ts';
import { alertWordsOf } from '../store/alert-words.ts';

const provider: StateProvider = {
  types: ['alert_words'],
  async fetch(svc, opts) {
    return { alert_words: await alertWordsOf(svc.store.db, opts.user.id) };
  },
};

export default feature({
  state: [provider],
});
