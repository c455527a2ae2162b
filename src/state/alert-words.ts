/** `alert_words` in POST /register: the user's alert words. */
import { registerState } from './registry.ts';
import { alertWordsOf } from '../store/alert-words.ts';

registerState({
  types: ['alert_words'],
  async fetch(svc, opts) {
    return { alert_words: await alertWordsOf(svc.store.db, opts.user.id) };
  },
});
