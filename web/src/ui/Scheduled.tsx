import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { api } from '../api.ts';
import { model, type ScheduledMessage } from '../model.ts';
import { cx, fullTime, plainText } from '../util.ts';
import { ErrorLine, FormButtons, useRequest } from './request.tsx';
import { closeOnEscape } from './Dialog.tsx';

/** `<input type="datetime-local">`'s value for a moment (local time, to the minute). */
function localInputValue(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The top of the next hour, as the form's first suggestion. */
function nextHour(): string {
  const d = new Date();
  d.setMinutes(60, 0, 0);
  return localInputValue(d.getTime());
}

/**
 * The handlers of a form with a "Send at" time: on submit, `submit` gets the
 * chosen time as a Unix timestamp (or the form says to choose one); Escape
 * closes the form.
 */
function timeFormHandlers(when: string, setError: (error: string) => void, onClose: () => void, submit: (timestamp: number) => void) {
  return {
    onSubmit(e: Event) {
      e.preventDefault();
      const ms = new Date(when).getTime();
      if (Number.isNaN(ms)) setError('Choose a date and time.');
      else submit(Math.floor(ms / 1000));
    },
    onKeyDown: closeOnEscape(onClose),
  };
}

/**
 * The compose box's "Send later": a time, then POST /scheduled_messages with
 * what the box would send (`send(timestamp)` does it and empties the box; it
 * answers false, with the box saying why, when there is nothing to send yet).
 */
export function ScheduleForm({ send, onClose }: { send(timestamp: number): Promise<boolean>; onClose(): void }) {
  const [when, setWhen] = useState(nextHour);
  const { busy, error, setError, run } = useRequest();
  return (
    <form
      class="schedule-form"
      aria-label="Send later"
      {...timeFormHandlers(when, setError, onClose, (timestamp) =>
        void run(async () => {
          if (await send(timestamp)) onClose();
        }),
      )}
    >
      <label for="schedule-at">Send at</label>
      <input id="schedule-at" type="datetime-local" required value={when} onInput={(e) => setWhen(e.currentTarget.value)} />
      <FormButtons submit="Schedule" disabled={busy} error={error} onCancel={onClose} inline />
    </form>
  );
}

/** Where a scheduled message goes, as the list says it. */
function target(m: ScheduledMessage): string {
  return m.type === 'stream' && typeof m.to === 'number' ? model.placeName(m.to, m.topic ?? '', []) : model.placeName(undefined, '', Array.isArray(m.to) ? m.to : []);
}

/**
 * Changes a scheduled message's time, topic (a channel message's) and text:
 * PATCH /scheduled_messages/{id} with what changed; the server's reason when
 * it refuses (a time in the past, an empty text). The list shows the change
 * from the scheduled_messages event.
 */
function ScheduledEdit({ m, onClose }: { m: ScheduledMessage; onClose(): void }) {
  const [when, setWhen] = useState(() => localInputValue(m.scheduled_delivery_timestamp * 1000));
  const [topic, setTopic] = useState(m.topic ?? '');
  const [content, setContent] = useState(m.content);
  const { busy, error, setError, run } = useRequest();
  const id = `scheduled-${m.scheduled_message_id}`;
  return (
    <form
      class="scheduled-edit"
      aria-label="Edit scheduled message"
      {...timeFormHandlers(when, setError, onClose, (timestamp) => {
        const changes: Record<string, string | number> = {};
        if (timestamp !== m.scheduled_delivery_timestamp) changes.scheduled_delivery_timestamp = timestamp;
        if (m.type === 'stream' && topic !== (m.topic ?? '')) changes.topic = topic;
        if (content !== m.content) changes.content = content;
        if (!Object.keys(changes).length) {
          onClose();
          return;
        }
        void run(async () => {
          await api('PATCH', `/scheduled_messages/${m.scheduled_message_id}`, changes);
          onClose();
        });
      })}
    >
      <label for={`${id}-at`}>Send at</label>
      <input id={`${id}-at`} type="datetime-local" required value={when} onInput={(e) => setWhen(e.currentTarget.value)} />
      {m.type === 'stream' && (
        <>
          <label for={`${id}-topic`}>Topic</label>
          <input id={`${id}-topic`} value={topic} onInput={(e) => setTopic(e.currentTarget.value)} />
        </>
      )}
      <label for={`${id}-text`}>Message</label>
      <textarea id={`${id}-text`} rows={3} value={content} onInput={(e) => setContent(e.currentTarget.value)} />
      <FormButtons submit="Save" disabled={busy} error={error} onCancel={onClose} />
    </form>
  );
}

/** A listed message's text on one line, as rendered (the whole in its tooltip). */
function ListedText({ html }: { html: string }) {
  const text = plainText(html);
  return (
    <span class="scheduled-text" title={text}>
      {text}
    </span>
  );
}

/** A saved list: under the compose box a disclosure ("Drafts (2)"), in its own dialog (#drafts, …) the list alone. */
export function SavedListBox({ summary, inDialog, drafts, children }: { summary: string; inDialog?: boolean; drafts?: boolean; children: ComponentChildren }) {
  const cls = cx('scheduled', drafts && 'drafts');
  return inDialog ? (
    <div class={cls}>{children}</div>
  ) : (
    <details class={cls}>
      <summary>{summary}</summary>
      {children}
    </details>
  );
}

/**
 * The user's scheduled messages not sent yet (soonest first), each with its
 * time, where it goes, its text, a way to change it, and a way to cancel it
 * (DELETE /scheduled_messages/{id}); the scheduled_messages events keep it
 * current.
 */
export function ScheduledList({ inDialog }: { inDialog?: boolean }) {
  const { busy, error, run } = useRequest();
  const [editing, setEditing] = useState<number | null>(null);
  const list = [...model.scheduledMessages.values()].sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp);
  // (Under the compose box only when there are some; in its dialog, saying there are none.)
  if (!list.length) return inDialog ? <p class="muted-text">No scheduled messages.</p> : null;
  return (
    <SavedListBox summary={`Scheduled messages (${list.length})`} inDialog={inDialog}>
      <ul aria-label="Scheduled messages">
        {list.map((m) => (
          <li key={m.scheduled_message_id} aria-label={`${target(m)}, ${fullTime(m.scheduled_delivery_timestamp)}`}>
            <span class="scheduled-when">
              {fullTime(m.scheduled_delivery_timestamp)}
              {m.failed && <span class="form-error"> (not sent: the server could not send it)</span>}
            </span>
            <span class="scheduled-target">{target(m)}</span>
            <ListedText html={m.rendered_content} />
            <span class="scheduled-actions">
              <button type="button" class="btn small" aria-expanded={editing === m.scheduled_message_id} onClick={() => setEditing(editing === m.scheduled_message_id ? null : m.scheduled_message_id)}>
                Edit
              </button>
              <button type="button" class="btn small" disabled={busy} onClick={() => void run(() => api('DELETE', `/scheduled_messages/${m.scheduled_message_id}`))}>
                Cancel message
              </button>
            </span>
            {editing === m.scheduled_message_id && <ScheduledEdit m={m} onClose={() => setEditing(null)} />}
          </li>
        ))}
      </ul>
      <ErrorLine error={error} />
    </SavedListBox>
  );
}

/**
 * "Remind me about this message": a time (the next full hour first) and an
 * optional note, then POST /reminders; at that time the server sends the
 * user a direct message about it.
 */
export function ReminderForm({ messageId, onClose }: { messageId: number; onClose(): void }) {
  const [when, setWhen] = useState(nextHour);
  const [note, setNote] = useState('');
  const { busy, error, setError, run } = useRequest();
  return (
    <form
      class="schedule-form"
      aria-label="Remind me about this message"
      {...timeFormHandlers(when, setError, onClose, (timestamp) =>
        void run(async () => {
          await api('POST', '/reminders', { message_id: messageId, scheduled_delivery_timestamp: timestamp, ...(note.trim() ? { note } : {}) });
          onClose();
        }),
      )}
    >
      <label for={`remind-at-${messageId}`}>Remind me at</label>
      <input id={`remind-at-${messageId}`} type="datetime-local" required value={when} onInput={(e) => setWhen(e.currentTarget.value)} />
      <label for={`remind-note-${messageId}`}>Note</label>
      <input id={`remind-note-${messageId}`} type="text" value={note} maxLength={model.realm.max_reminder_note_length ?? 1000} onInput={(e) => setNote(e.currentTarget.value)} />
      <FormButtons submit="Set reminder" disabled={busy} error={error} onCancel={onClose} inline />
    </form>
  );
}

/** The user's reminders not sent yet (soonest first), each with a link to its message and a button cancelling it. */
export function RemindersList({ inDialog }: { inDialog?: boolean }) {
  const { busy, error, run } = useRequest();
  const list = [...model.reminders.values()].sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp);
  if (!list.length) return inDialog ? <p class="muted-text">No reminders.</p> : null;
  return (
    <SavedListBox summary={`Reminders (${list.length})`} inDialog={inDialog}>
      <ul aria-label="Reminders">
        {list.map((r) => (
          <li key={r.reminder_id} aria-label={`Reminder, ${fullTime(r.scheduled_delivery_timestamp)}`}>
            <span class="scheduled-when">
              {fullTime(r.scheduled_delivery_timestamp)}
              {r.failed && <span class="form-error"> (not sent: the server could not send it)</span>}
            </span>
            <a class="scheduled-target" href={`#narrow/near/${r.reminder_target_message_id}`}>
              The message
            </a>
            <ListedText html={r.rendered_content} />
            <span class="scheduled-actions">
              <button type="button" class="btn small" disabled={busy} onClick={() => void run(() => api('DELETE', `/reminders/${r.reminder_id}`))}>
                Cancel reminder
              </button>
            </span>
          </li>
        ))}
      </ul>
      <ErrorLine error={error} />
    </SavedListBox>
  );
}
