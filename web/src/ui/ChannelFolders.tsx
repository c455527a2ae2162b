import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ifChanged } from '../util.ts';
import { model, type ChannelFolder } from '../model.ts';
import { ErrorLine, FormButtons, NameAndDescription, useAction, useRequest } from './request.tsx';

/**
 * The organization's channel folders, for administrators: a folder added
 * (POST /channel_folders/create), renamed and described (PATCH
 * /channel_folders/{id}), moved up or down (PATCH /channel_folders with the
 * new order), archived and unarchived. Channels are put in a folder from
 * their settings (Channels); the left sidebar groups them by folder. The list
 * follows the channel_folder events; the server says why when it refuses.
 */
export function ChannelFolders() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [editing, setEditing] = useState<number | null>(null);
  const add = useAction();
  const change = useRequest();
  const active = model.activeFolders();
  const archived = [...model.channelFolders.values()].filter((f) => f.is_archived).sort((a, b) => a.order - b.order);

  const move = (i: number, by: number) => {
    const order = active.map((f) => f.id);
    [order[i], order[i + by]] = [order[i + by]!, order[i]!];
    void change.run(() => api('PATCH', '/channel_folders', { order }));
  };

  return (
    <section aria-labelledby="folders-title">
      <h2 id="folders-title">Channel folders</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void add.run(async () => {
            await api('POST', '/channel_folders/create', { name, description });
            setName('');
            setDescription('');
          }, 'Folder added.');
        }}
      >
        <NameAndDescription id="folder" noun="Folder" name={name} description={description} maxName={60} onName={setName} onDescription={setDescription} />
        <button type="submit" class="btn primary" disabled={add.busy || !name.trim()}>
          Add folder
        </button>
        {add.view}
      </form>
      <ErrorLine error={change.error} />
      {active.length === 0 && <p class="muted-text">No channel folders yet.</p>}
      <ul class="linkifier-list" aria-label="Channel folders">
        {active.map((f, i) => (
          <li key={f.id} aria-label={f.name}>
            {editing === f.id ? (
              <FolderEdit folder={f} onClose={() => setEditing(null)} />
            ) : (
              <>
                <span class="org-person">
                  {f.name} {f.description && <span class="muted-text">{f.description}</span>}
                </span>
                <span class="row-buttons">
                  <button type="button" class="btn small" aria-label={`Move ${f.name} up`} disabled={change.busy || i === 0} onClick={() => move(i, -1)}>
                    {'\u2191'}
                  </button>
                  <button type="button" class="btn small" aria-label={`Move ${f.name} down`} disabled={change.busy || i === active.length - 1} onClick={() => move(i, 1)}>
                    {'\u2193'}
                  </button>
                  <button type="button" class="btn small" aria-label={`Edit ${f.name}`} onClick={() => setEditing(f.id)}>
                    Edit
                  </button>
                  <button type="button" class="btn small" aria-label={`Archive ${f.name}`} disabled={change.busy} onClick={() => void change.run(() => api('PATCH', `/channel_folders/${f.id}`, { is_archived: true }))}>
                    Archive
                  </button>
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
      {archived.length > 0 && (
        <ul class="linkifier-list" aria-label="Archived channel folders">
          {archived.map((f) => (
            <li key={f.id} aria-label={f.name}>
              <span class="org-person muted-text">{f.name} (archived)</span>
              <button type="button" class="btn small" aria-label={`Unarchive ${f.name}`} disabled={change.busy} onClick={() => void change.run(() => api('PATCH', `/channel_folders/${f.id}`, { is_archived: false }))}>
                Unarchive
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A folder's name and description, edited in its row. */
function FolderEdit({ folder: f, onClose }: { folder: ChannelFolder; onClose(): void }) {
  const [name, setName] = useState(f.name);
  const [description, setDescription] = useState(f.description);
  const { busy, error, run } = useRequest();
  return (
    <form
      class="group-editor"
      aria-label={`Edit ${f.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void run(async () => {
          await api('PATCH', `/channel_folders/${f.id}`, { name: ifChanged(name, f.name), description: ifChanged(description, f.description) });
          onClose();
        });
      }}
    >
      <NameAndDescription id={`folder-${f.id}`} noun="Folder" name={name} description={description} maxName={60} onName={setName} onDescription={setDescription} />
      <FormButtons submit="Save folder" disabled={busy} error={error} onCancel={onClose} />
    </form>
  );
}
