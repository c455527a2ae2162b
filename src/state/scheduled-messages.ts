/**
 * POST /register `scheduled_messages`: the user's undelivered scheduled
 * messages (failed ones included), by delivery time. The empty topic is
 * named for clients without the empty_topic_name capability.
 */
import { feature, type StateProvider } from './registry.ts';
import { scheduledMessagesEventFilter } from '../actions/scheduled-messages.ts';
import { realmById } from '../store/realm.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { listScheduledMessages } from '../actions/scheduled-messages.ts';

const provider: StateProvider = {
  types: ['scheduled_messages'],
  async fetch(svc, opts) {
    const list = await listScheduledMessages(svc, opts.user);
    if (!opts.clientCapabilities.empty_topic_name) {
      const emptyName = String(realmSettings((await realmById(svc.store.db, svc.realmId)).settings_json).empty_topic_display_name);
      for (const m of list) if (m.type === 'stream' && m.topic === '') m.topic = emptyName;
    }
    return { scheduled_messages: list };
  },
};

export default feature({
  state: [provider],
  filters: { scheduled_messages: scheduledMessagesEventFilter },
});
