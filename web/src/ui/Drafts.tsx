import { allDrafts, deleteDraft, draftPlace, syncing } from '../drafts.ts';
import type { Draft } from '../model.ts';
import { fullTime } from '../util.ts';
import { ErrorLine, useRequest } from './request.tsx';
import { Dialog } from './Dialog.tsx';
import { RemindersList, SavedListBox, ScheduledList } from './Scheduled.tsx';

/**
 * The user's drafts, newest first, each with where it goes, its text,
 * "Restore" (`onRestore`: its conversation, its text in the compose box) and
 * "Delete"; the drafts events (or, in this browser only, localStorage) keep
 * it current.
 */
export function DraftsList({ onRestore, inDialog }: { onRestore(d: Draft): void; inDialog?: boolean }) {
  const { busy, error, run } = useRequest();
  const list = allDrafts();
  return (
    <SavedListBox summary={`Drafts (${list.length})`} inDialog={inDialog} drafts>
      {!syncing() && <p class="muted-text">Drafts are kept in this browser only (synchronizing drafts is off in Settings).</p>}
      {list.length ? (
        <ul aria-label="Drafts">
          {list.map((d) => (
            <li key={d.id} aria-label={`${draftPlace(d)}, ${fullTime(d.timestamp)}`}>
              <span class="scheduled-target">{draftPlace(d)}</span>
              <span class="scheduled-text">{d.content}</span>
              <button type="button" class="btn small" onClick={() => onRestore(d)}>
                Restore
              </button>
              <button type="button" class="btn small" disabled={busy} onClick={() => void run(() => deleteDraft(d.id))}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted-text">No drafts.</p>
      )}
      <ErrorLine error={error} />
    </SavedListBox>
  );
}

/**
 * Zulip's Drafts, Scheduled messages and Reminders pages (#drafts,
 * #scheduled, #reminders), as a dialog over the view: the list, open.
 */
export function SavedList({ which, onRestore, onClose }: { which: string; onRestore(d: Draft): void; onClose(): void }) {
  const title = which === '#drafts' ? 'Drafts' : which === '#scheduled' ? 'Scheduled messages' : 'Reminders';
  return (
    <Dialog id="saved-title" title={title} onClose={onClose}>
      {which === '#drafts' ? <DraftsList inDialog onRestore={onRestore} /> : which === '#scheduled' ? <ScheduledList inDialog /> : <RemindersList inDialog />}
    </Dialog>
  );
}
