import type { ComponentChildren } from 'preact';

/** A dialog over the app (settings, channels): a click outside it or its × closes it (Esc: see App). */
export function Dialog({ id, title, wide, onClose, children }: { id: string; title: string; wide?: string; onClose(): void; children: ComponentChildren }) {
  return (
    <div class="overlay" role="dialog" aria-modal="true" aria-labelledby={id} onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class={wide ? `settings ${wide}` : 'settings'}>
        <header>
          <h1 id={id}>{title}</h1>
          <button type="button" class="icon-btn" aria-label={`Close ${title.toLowerCase()}`} onClick={onClose}>
            ×
          </button>
        </header>
        {children}
      </div>
    </div>
  );
}
