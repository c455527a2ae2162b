/**
 * One's uploaded files (Zulip's "Uploaded files"): each with its size, when
 * it was uploaded and how many messages link to it, opened from its name,
 * and deleted once confirmed (DELETE /attachments/{id}: the file goes, also
 * from the messages that link to it). Fetched when shown (GET /attachments);
 * the attachment events keep the list current.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model, type Attachment } from '../model.ts';
import { Confirm, ErrorLine, useAction, useRequest } from './request.tsx';

/** A size in bytes as people read it. */
function readableSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function Uploads() {
  const [open, setOpen] = useState(false);
  const [deleting, setDeleting] = useState<number | null>(null);
  const load = useRequest();
  const remove = useAction();
  const show = () => {
    setOpen(true);
    void load.run(async () => {
      const r = await api('GET', '/attachments');
      model.attachments = new Map((r.attachments as Attachment[]).map((a) => [a.id, a]));
      model.changed();
    });
  };
  const files = [...(model.attachments?.values() ?? [])].sort((a, b) => b.create_time - a.create_time);
  return (
    <section aria-labelledby="uploads-title">
      <h2 id="uploads-title">Uploaded files</h2>
      <button type="button" class="btn" aria-expanded={open} onClick={() => (open ? setOpen(false) : show())}>
        {open ? 'Hide my files' : 'Show my files'}
      </button>
      {open && (
        <>
          <ErrorLine error={load.error} />
          {model.attachments && (files.length === 0 ? (
            <p class="muted-text">You have not uploaded any files.</p>
          ) : (
            <>
              <p class="muted-text">
                {files.length === 1 ? '1 file' : `${files.length} files`}, {readableSize(files.reduce((n, f) => n + f.size, 0))} in all.
              </p>
              <ul class="upload-list" aria-label="My uploaded files">
                {files.map((f) => (
                  <li key={f.id} aria-label={f.name}>
                    <a href={`/user_uploads/${f.path_id}`} target="_blank" rel="noopener noreferrer">
                      {f.name}
                    </a>
                    <span class="muted-text">
                      {readableSize(f.size)} · {new Date(f.create_time * 1000).toLocaleDateString()} ·{' '}
                      {f.message_ids.length === 0 ? 'in no message' : f.message_ids.length === 1 ? 'in 1 message' : `in ${f.message_ids.length} messages`}
                    </span>
                    {deleting === f.id ? (
                      <Confirm
                        label={`Delete ${f.name}?`}
                        text={`Delete ${f.name}? It goes from the messages that link to it too.`}
                        action="Delete"
                        busy={remove.busy}
                        onConfirm={() => void remove.run(() => api('DELETE', `/attachments/${f.id}`), 'Deleted.').then(() => setDeleting(null))}
                        onCancel={() => setDeleting(null)}
                      />
                    ) : (
                      <button type="button" class="btn small" aria-label={`Delete ${f.name}`} onClick={() => setDeleting(f.id)}>
                        Delete
                      </button>
                    )}
                  </li>
                ))}
              </ul>
            </>
          ))}
          {remove.view}
        </>
      )}
    </section>
  );
}
