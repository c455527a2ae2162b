/**
 * A message's less frequent actions, in its "More actions" menu: its edit
 * history, its read receipts, "Mark as unread from here" and its permanent
 * link.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model, type Attachment, type Message } from '../model.ts';
import { messageLinkHash } from '../narrow.ts';
import { fullTime, ifChanged, prepareHtml } from '../util.ts';
import { closeOnEscape, Dialog } from './Dialog.tsx';
import { ErrorLine, FormButtons, useRequest } from './request.tsx';
import { MoveTopicField } from './Typeahead.tsx';

/** Whether the organization lets its members see this message's edit history, and it has one. */
export function hasVisibleHistory(m: Message): boolean {
  const policy = model.realm.realm_message_edit_history_visibility_policy ?? 'all';
  if (policy === 'all') return !!(m.last_edit_timestamp || m.last_moved_timestamp);
  if (policy === 'moves') return !!m.last_moved_timestamp;
  return false;
}

/** The message's permanent link, which opens its conversation at it. */
export function messageLink(m: Message): string {
  return `${location.origin}/${messageLinkHash(m, model.streamName(m.stream_id) ?? '')}`;
}

/** A dialog titled by the element `id`: the focus on its first button (Close) when it opens. */
function useFocusOnClose(id: string): void {
  useEffect(() => {
    document.getElementById(id)?.closest('[role="dialog"]')?.querySelector('button')?.focus();
  }, []);
}

/** One version of a message, as GET /messages/{id}/history gives it (oldest first). */
interface Version {
  timestamp: number;
  user_id: number | null;
  topic: string;
  rendered_content: string;
  prev_topic?: string;
  prev_stream?: number;
  stream?: number;
  prev_rendered_content?: string;
}

const place = (streamId: number | undefined, topic: string) => `#${model.streamName(streamId) ?? 'unknown channel'} > ${topic || '(no topic)'}`;

export function EditHistory({ message, onClose }: { message: Message; onClose(): void }) {
  const [versions, setVersions] = useState<Version[] | null>(null);
  const { error, run } = useRequest();
  useFocusOnClose('edit-history-title');
  useEffect(() => {
    void run(async () => setVersions((await api('GET', `/messages/${message.id}/history`)).message_history));
  }, [message.id]);
  // The channel each version was in: walking back from the message's current one.
  const channels: Array<number | undefined> = [];
  if (versions) {
    let channel = message.stream_id;
    for (let i = versions.length - 1; i >= 0; i--) {
      channels[i] = channel;
      if (versions[i]!.prev_stream !== undefined) channel = versions[i]!.prev_stream;
    }
  }
  return (
    <Dialog id="edit-history-title" title="Message edit history" onClose={onClose}>
      <ErrorLine error={error} />
      {!versions && !error && <p role="status">{'Loading\u2026'}</p>}
      {versions && (
        <ol class="edit-history">
          {versions.map((v, i) => {
            const moved = i > 0 && (v.prev_topic !== undefined || v.prev_stream !== undefined);
            const edited = i > 0 && v.prev_rendered_content !== undefined;
            const what = i === 0 ? 'Posted' : edited && moved ? 'Edited and moved' : edited ? 'Edited' : 'Moved';
            return (
              <li key={i}>
                <p class="history-head">
                  <strong>
                    {what} by {v.user_id === null ? 'someone' : model.userName(v.user_id)}
                  </strong>{' '}
                  <time dateTime={new Date(v.timestamp * 1000).toISOString()}>{fullTime(v.timestamp)}</time>
                </p>
                {moved && (
                  <p class="history-move">
                    Moved from {place(v.prev_stream ?? channels[i], v.prev_topic ?? v.topic)} to {place(channels[i], v.topic)}
                  </p>
                )}
                {(i === 0 || edited) && <div class="message-content rendered" dangerouslySetInnerHTML={{ __html: prepareHtml(v.rendered_content) }} />}
              </li>
            );
          })}
        </ol>
      )}
    </Dialog>
  );
}

export function ReadReceipts({ messageId, onClose }: { messageId: number; onClose(): void }) {
  const [readers, setReaders] = useState<number[] | null>(null);
  const { error, run } = useRequest();
  useFocusOnClose('read-receipts-title');
  useEffect(() => {
    void run(async () => setReaders((await api('GET', `/messages/${messageId}/read_receipts`)).user_ids));
  }, [messageId]);
  const names = (readers ?? []).map((id) => model.userName(id)).sort((a, b) => a.localeCompare(b));
  return (
    <Dialog id="read-receipts-title" title="Read receipts" onClose={onClose}>
      <ErrorLine error={error} />
      {!readers && !error && <p role="status">{'Loading\u2026'}</p>}
      {readers && !names.length && <p>No one has read this message yet.</p>}
      {names.length > 0 && (
        <>
          <p>
            This message has been read by {names.length} {names.length === 1 ? 'person' : 'people'}:
          </p>
          <ul class="read-receipts" aria-label="Read by">
            {names.map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </>
      )}
    </Dialog>
  );
}

/**
 * After an edit that left some of one's uploaded files in no message (the
 * edit's `detached_uploads`): Zulip's offer to delete them, each deleted
 * with DELETE /attachments/{id}; those that could not be are kept for
 * another try.
 */
export function DetachedUploads({ files, onClose }: { files: Attachment[]; onClose(): void }) {
  const [left, setLeft] = useState(files);
  const { busy, error, setError, run } = useRequest();
  useFocusOnClose('detached-uploads-title');
  const historyVisible = (model.realm.realm_message_edit_history_visibility_policy ?? 'all') !== 'none';
  async function remove(): Promise<void> {
    const failed: Attachment[] = [];
    await run(async () => {
      for (const f of left) {
        try {
          await api('DELETE', `/attachments/${f.id}`);
        } catch {
          failed.push(f);
        }
      }
    });
    if (!failed.length) return onClose();
    setLeft(failed);
    setError('One or more files could not be deleted.');
  }
  return (
    <Dialog id="detached-uploads-title" title="Delete uploaded files?" onClose={onClose}>
      <p>
        The following{' '}
        <a href="#settings/uploaded-files" onClick={onClose}>
          uploaded files
        </a>{' '}
        are no longer attached to any messages.{historyVisible ? " They can still be accessed from this message's edit history." : ''} Would you like to delete them entirely?
      </p>
      <ul aria-label="Files no longer attached">
        {left.map((f) => (
          <li key={f.id}>
            <a href={`/user_uploads/${f.path_id}`} target="_blank" rel="noopener noreferrer">
              {f.name}
            </a>
          </li>
        ))}
      </ul>
      <div class="group-actions">
        <button type="button" class="btn danger" disabled={busy} onClick={() => void remove()}>
          Delete
        </button>
        <button type="button" class="btn" onClick={onClose}>
          Don't delete
        </button>
      </div>
      <ErrorLine error={error} />
    </Dialog>
  );
}

/** A message's Markdown as its sender wrote it (GET /messages/{id}, the raw content), for a message one cannot edit. */
export function MessageSource({ messageId, onClose }: { messageId: number; onClose(): void }) {
  const [source, setSource] = useState<string | null>(null);
  const { error, run } = useRequest();
  useFocusOnClose('message-source-title');
  useEffect(() => {
    void run(async () => {
      const r = await api('GET', `/messages/${messageId}`, { apply_markdown: false });
      setSource(String(r.raw_content ?? r.message?.content ?? ''));
    });
  }, [messageId]);
  return (
    <Dialog id="message-source-title" title="Original message" onClose={onClose}>
      <ErrorLine error={error} />
      {source === null && !error && <p role="status">{'Loading\u2026'}</p>}
      {source !== null && (
        <pre class="message-source" aria-label="Markdown">
          {source}
        </pre>
      )}
    </Dialog>
  );
}

/** Whether messages can be reported here: the organization has a channel for moderation requests. */
export function reportsEnabled(): boolean {
  return ((model.realm.realm_moderation_request_channel_id as number | undefined) ?? -1) !== -1;
}

/**
 * "Report message": a reason (the server's report types) and details (needed
 * for "Other reason"), then POST /messages/{id}/report; the server posts the
 * report to the organization's moderation channel.
 */
export function ReportForm({ messageId, onClose }: { messageId: number; onClose(): void }) {
  const types = (model.realm.server_report_message_types as Array<{ key: string; name: string }> | undefined) ?? [];
  const [reason, setReason] = useState(types[0]?.key ?? 'spam');
  const [details, setDetails] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, run } = useRequest();
  if (sent) {
    return (
      <p class="form-ok" role="status">
        Your report was sent to the moderators.{' '}
        <button type="button" class="btn small" onClick={onClose}>
          Close
        </button>
      </p>
    );
  }
  return (
    <form
      class="schedule-form"
      aria-label="Report this message"
      onSubmit={(e) => {
        e.preventDefault();
        void run(async () => {
          await api('POST', `/messages/${messageId}/report`, { report_type: reason, description: details.trim() });
          setSent(true);
        });
      }}
      onKeyDown={closeOnEscape(onClose)}
    >
      <label for={`report-${messageId}-reason`}>Reason</label>
      <select id={`report-${messageId}-reason`} value={reason} onChange={(e) => setReason(e.currentTarget.value)}>
        {types.map((t) => (
          <option key={t.key} value={t.key}>
            {t.name}
          </option>
        ))}
      </select>
      <label for={`report-${messageId}-details`}>Details</label>
      <input id={`report-${messageId}-details`} type="text" value={details} required={reason === 'other'} onInput={(e) => setDetails(e.currentTarget.value)} />
      <FormButtons submit="Send report" disabled={busy} error={error} onCancel={onClose} inline />
    </form>
  );
}

/** Zulip's propagate_mode choices for moving a message, as offered. */
const MOVE_SCOPES: Array<[string, string]> = [
  ['change_one', 'This message only'],
  ['change_later', 'This and later messages'],
  ['change_all', 'All messages in the topic'],
];

/** Whether the user may move a channel's messages to another topic or channel (the server still decides, with its time limits). */
export function mayMove(streamId: number): boolean {
  return model.mayMoveWithin(streamId) || model.mayMoveOut(streamId);
}

/** The channels a channel's messages may be moved to by the user: any of theirs where they may move them out, else that channel only. */
export function moveTargets(streamId: number) {
  const subs = model.activeSubs();
  return model.mayMoveOut(streamId) ? subs : subs.filter((c) => c.stream_id === streamId);
}

/**
 * "Move message": a channel message (and, as chosen, the later ones or all
 * of its topic) to another topic and/or channel, PATCH /messages/{id} with
 * Zulip's propagate_mode and whether Notification Bot tells the new and the
 * old topic. The server's refusal shows.
 */
export function MoveForm({ message, onClose }: { message: Message; onClose(): void }) {
  const [channel, setChannel] = useState(message.stream_id!);
  const [topic, setTopic] = useState(message.subject);
  const [scope, setScope] = useState('change_one');
  const [notifyNew, setNotifyNew] = useState(true);
  const [notifyOld, setNotifyOld] = useState(false);
  const { busy, error, run } = useRequest();
  const channels = moveTargets(message.stream_id!);
  const id = `move-${message.id}`;
  return (
    <form
      class="schedule-form"
      aria-label="Move this message"
      onSubmit={(e) => {
        e.preventDefault();
        const to = topic.trim();
        if (to === message.subject && channel === message.stream_id) return onClose();
        void run(async () => {
          await api('PATCH', `/messages/${message.id}`, {
            propagate_mode: scope,
            topic: ifChanged(to, message.subject),
            stream_id: ifChanged(channel, message.stream_id),
            send_notification_to_new_thread: notifyNew,
            send_notification_to_old_thread: notifyOld,
          });
          onClose();
        });
      }}
      onKeyDown={closeOnEscape(onClose)}
    >
      <label for={`${id}-channel`}>To channel</label>
      <select id={`${id}-channel`} value={String(channel)} onChange={(e) => setChannel(Number(e.currentTarget.value))}>
        {channels.map((c) => (
          <option key={c.stream_id} value={String(c.stream_id)}>
            #{c.name}
          </option>
        ))}
      </select>
      <label for={`${id}-topic`}>Topic</label>
      <MoveTopicField id={`${id}-topic`} listId={`${id}-topics`} channel={channel} value={topic} setValue={setTopic} disabled={!model.mayMoveWithin(message.stream_id!)} maxLength={model.realm.max_topic_length ?? 60} />
      <label for={`${id}-scope`}>Move</label>
      <select id={`${id}-scope`} value={scope} onChange={(e) => setScope(e.currentTarget.value)}>
        {MOVE_SCOPES.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      <label class="check">
        <input type="checkbox" checked={notifyNew} onChange={(e) => setNotifyNew(e.currentTarget.checked)} /> Tell the new topic
      </label>
      <label class="check">
        <input type="checkbox" checked={notifyOld} onChange={(e) => setNotifyOld(e.currentTarget.checked)} /> Tell the old topic
      </label>
      <FormButtons submit="Move" disabled={busy} error={error} onCancel={onClose} inline />
    </form>
  );
}
