/** `reminders` in POST /register (the user's pending reminders) and max_reminder_note_length. */
import { feature } from './registry.ts';
import { MAX_REMINDER_NOTE_LENGTH, registerReminders } from '../actions/reminders.ts';

export default feature({
  state: [
    {
      types: ['reminders', 'realm'],
      async fetch(svc, opts, wants) {
        const out: Record<string, unknown> = {};
        if (wants('reminders')) out.reminders = await registerReminders(svc.store.db, svc.realmId, opts.user.id);
        if (wants('realm')) out.max_reminder_note_length = MAX_REMINDER_NOTE_LENGTH;
        return out;
      },
    },
  ],
});
