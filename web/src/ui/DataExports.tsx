import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model, type RealmExport } from '../model.ts';
import { fullTime } from '../util.ts';
import { Confirm, ErrorLine, useAction, useRequest } from './request.tsx';

const EXPORT_KINDS: Array<[string, string]> = [
  ['public', 'Public data'],
  ['full_with_consent', 'Full, with the private data of those who allow it'],
];

/** What an export holds, by its export_type. */
const kindName = (t: RealmExport['export_type']): string => EXPORT_KINDS.find(([v]) => v === String(t))?.[1] ?? String(t);

/** Where an export stands: being written, failed, deleted, or ready to download. */
function exportState(x: RealmExport) {
  if (x.deleted_timestamp) return <span class="muted-text">Deleted {fullTime(x.deleted_timestamp)}</span>;
  if (x.failed_timestamp) return <span class="form-error">Failed {fullTime(x.failed_timestamp)}</span>;
  if (x.pending || !x.export_url) return <span class="muted-text">{'Exporting\u2026'}</span>;
  return (
    <a href={x.export_url} download>
      Download
    </a>
  );
}

/**
 * The organization's data exports (Zulip's "Data exports", for
 * administrators): an export started of the public data, or of everything
 * with the private data of those who allow it (Settings, Account); the
 * exports listed newest first, each downloaded once written, or deleted
 * (confirmed first). The list follows the server's realm_export events, so
 * an export shows as ready, failed or deleted as it happens.
 */
export function DataExports() {
  const [kind, setKind] = useState('public');
  const [deleting, setDeleting] = useState<number | null>(null);
  const start = useAction();
  const change = useRequest();
  useEffect(() => {
    void change.run(async () => {
      model.realmExports = (await api('GET', '/export/realm')).exports as RealmExport[];
      model.changed();
    });
  }, []);
  const exports = [...(model.realmExports ?? [])].sort((a, b) => b.id - a.id);

  return (
    <>
      <h3 id="org-exports-title">Data exports</h3>
      <form
        aria-labelledby="org-exports-title"
        onSubmit={(e) => {
          e.preventDefault();
          void start.run(() => api('POST', '/export/realm', { export_type: kind }), 'Export started: it shows below once written.');
        }}
      >
        <label for="export-kind">What to export</label>
        <div class="row">
          <select id="export-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            {EXPORT_KINDS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <button type="submit" class="btn" disabled={start.busy}>
            Start export
          </button>
        </div>
        {start.view}
      </form>
      <ErrorLine error={change.error} />
      {model.realmExports !== null && exports.length === 0 && <p class="muted-text">No exports yet.</p>}
      {exports.length > 0 && (
        <ul class="linkifier-list" aria-label="Data exports">
          {exports.map((x) => (
            <li key={x.id} aria-label={`Export ${x.id}`}>
              <span class="export-info">
                {kindName(x.export_type)}{' '}
                <span class="muted-text">
                  by {model.userName(x.acting_user_id)}, {fullTime(x.export_time)}
                </span>{' '}
                {exportState(x)}
              </span>
              {!x.deleted_timestamp && !x.pending && (
                <span class="row-buttons">
                  {deleting === x.id ? (
                    <Confirm
                      label={`Delete export ${x.id}?`}
                      text="Delete this export's file?"
                      action="Delete"
                      busy={change.busy}
                      onConfirm={() => void change.run(() => api('DELETE', `/export/realm/${x.id}`)).then(() => setDeleting(null))}
                      onCancel={() => setDeleting(null)}
                    />
                  ) : (
                    <button type="button" class="btn small" aria-label={`Delete export ${x.id}`} onClick={() => setDeleting(x.id)}>
                      Delete
                    </button>
                  )}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
