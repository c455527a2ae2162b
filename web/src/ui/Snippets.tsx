import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model } from '../model.ts';
import { Popover } from './Dialog.tsx';
import { autoFocusOnce } from '../util.ts';
import { ErrorLine, useRequest } from './request.tsx';

/**
 * The compose box's saved snippets: the user's snippets by title, found by
 * their title or text; one picked (a click, or Enter on the filter for the
 * first) goes where the caret is. A new one is saved from a title and a text
 * (the compose box's text offered); one can be edited and deleted. Kept
 * current by the saved_snippets events.
 */
export function SnippetPicker({ draft, onPick, onClose }: { draft: string; onPick(content: string): void; onClose(): void }) {
  const [filter, setFilter] = useState('');
  /** The snippet being edited, 'new' for a new one, or null while the list shows. */
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const request = useRequest();
  const needle = filter.trim().toLowerCase();
  const shown = [...model.savedSnippets.values()]
    .filter((s) => !needle || s.title.toLowerCase().includes(needle) || s.content.toLowerCase().includes(needle))
    .sort((a, b) => a.title.localeCompare(b.title));

  return (
    <Popover class="snippet-picker" label="Saved snippets" onClose={onClose}>
      {editing !== null ? (
        <form
          aria-label={editing === 'new' ? 'New saved snippet' : 'Edit saved snippet'}
          onSubmit={(e) => {
            e.preventDefault();
            void request.run(async () => {
              if (editing === 'new') await api('POST', '/saved_snippets', { title, content });
              else await api('PATCH', `/saved_snippets/${editing}`, { title, content });
              setEditing(null);
            });
          }}
        >
          <label for="snippet-title">Title</label>
          <input id="snippet-title" type="text" value={title} required maxLength={60} ref={autoFocusOnce} onInput={(e) => setTitle(e.currentTarget.value)} />
          <label for="snippet-content">Text</label>
          <textarea id="snippet-content" value={content} required rows={4} onInput={(e) => setContent(e.currentTarget.value)} />
          <div class="row">
            <button type="submit" class="btn primary small" disabled={request.busy}>
              Save snippet
            </button>
            <button type="button" class="btn small" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <input
            type="search"
            aria-label="Filter saved snippets"
            placeholder="Filter saved snippets"
            value={filter}
            ref={autoFocusOnce}
            onInput={(e) => setFilter(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && shown[0]) {
                e.preventDefault();
                onPick(shown[0].content);
              }
            }}
          />
          <ul class="snippet-list" aria-label="Your saved snippets">
            {shown.map((s) => (
              <li key={s.id} aria-label={s.title}>
                <button type="button" class="snippet-choice" title={s.content} onClick={() => onPick(s.content)}>
                  <span class="snippet-title">{s.title}</span>
                  <span class="muted-text snippet-text">{s.content}</span>
                </button>
                <button
                  type="button"
                  class="icon-btn small"
                  aria-label={`Edit saved snippet ${s.title}`}
                  onClick={() => {
                    setTitle(s.title);
                    setContent(s.content);
                    setEditing(s.id);
                  }}
                >
                  {'\u270e'}
                </button>
                <button type="button" class="icon-btn small" aria-label={`Delete saved snippet ${s.title}`} disabled={request.busy} onClick={() => void request.run(() => api('DELETE', `/saved_snippets/${s.id}`))}>
                  {'\u00d7'}
                </button>
              </li>
            ))}
          </ul>
          {model.savedSnippets.size === 0 && <p class="muted-text">No saved snippets yet.</p>}
          {model.savedSnippets.size > 0 && shown.length === 0 && <p class="muted-text">No saved snippet matches.</p>}
          <button
            type="button"
            class="btn small"
            onClick={() => {
              setTitle('');
              setContent(draft);
              setEditing('new');
            }}
          >
            New saved snippet
          </button>
        </>
      )}
      <ErrorLine error={request.error} />
    </Popover>
  );
}
