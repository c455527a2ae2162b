import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { autoFocusOnce, cx } from '../util.ts';

/** What Tab can reach inside a dialog. */
const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog's keydown handler: Tab past its last control comes back to
 * its first, Shift+Tab before its first goes to its last, so the focus stays
 * in the dialog while it is open (as aria-modal promises).
 */
export function keepFocusInside(e: KeyboardEvent): void {
  if (e.key !== 'Tab') return;
  const box = e.currentTarget as HTMLElement;
  const controls = [...box.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0);
  if (!controls.length) return;
  const first = controls[0]!;
  const last = controls[controls.length - 1]!;
  const at = document.activeElement;
  if (e.shiftKey && (at === first || at === box)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && at === last) {
    e.preventDefault();
    first.focus();
  }
}

/** A keydown handler for something that Escape closes (a form in a row, a picker): it closes that, and the key goes no further. */
export function closeOnEscape(onClose: () => void): (e: KeyboardEvent) => void {
  return (e) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onClose();
    }
  };
}

/** The open modal dialogs' ways to close, the newest last. */
const openModals: Array<{ close(): void }> = [];

/**
 * Makes a modal dialog one that Escape closes: while it is open, it is on
 * the stack of open modal dialogs, and closeNewestModal (App's Escape)
 * closes the newest only (a user's card over Settings, then Settings).
 */
export function useModal(onClose: () => void): void {
  const entry = useRef({ close: onClose });
  entry.current.close = onClose;
  // Before the browser paints the dialog: an Escape pressed as soon as it shows closes it.
  useLayoutEffect(() => {
    const e = entry.current;
    openModals.push(e);
    return () => {
      const i = openModals.indexOf(e);
      if (i >= 0) openModals.splice(i, 1);
    };
  }, []);
}

/** Closes the newest open modal dialog; whether there was one. */
export function closeNewestModal(): boolean {
  const newest = openModals[openModals.length - 1];
  newest?.close();
  return newest !== undefined;
}

/** A dialog over the app (settings, channels, a message's history): a click outside it, its × or Escape closes it; Tab stays inside it. */
export function Dialog({ id, title, wide, onClose, children }: { id: string; title: string; wide?: string; onClose(): void; children: ComponentChildren }) {
  useModal(onClose);
  return (
    <div class="overlay" role="dialog" aria-modal="true" aria-labelledby={id} onClick={(e) => e.target === e.currentTarget && onClose()} onKeyDown={keepFocusInside}>
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

/** A small non-modal dialog over its button (a picker): Escape closes it, and only it, also when the focus has left it (as Zulip's popovers). */
export function Popover({ class: cls, label, onClose, children }: { class: string; label: string; onClose(): void; children: ComponentChildren }) {
  useModal(onClose);
  return (
    <div
      class={cls}
      role="dialog"
      aria-label={label}
      onKeyDown={closeOnEscape(onClose)}
    >
      {children}
    </div>
  );
}

/**
 * A menu of actions beside its button (a message's "More actions", a
 * channel's in the sidebar), named `label`: its first item focused; Up and
 * Down move between items; Escape closes it (back to its button, the
 * element with aria-haspopup beside it), and so does the focus leaving
 * the menu and its button (not an item's going while focused: the focus
 * moves to the first item then).
 */
export function Menu({ label, class: cls = 'msg-menu', onClose, children }: { label: string; class?: string; onClose(): void; children: ComponentChildren }) {
  return (
    <div
      class={cls}
      role="menu"
      aria-label={label}
      ref={(el) => autoFocusOnce(el?.querySelector<HTMLElement>('[role="menuitem"]') ?? null)}
      onKeyDown={(e) => {
        const items = [...e.currentTarget.querySelectorAll<HTMLElement>('[role="menuitem"]')];
        const at = items.indexOf(document.activeElement as HTMLElement);
        if (e.key === 'Escape') {
          e.stopPropagation();
          e.currentTarget.parentElement?.querySelector<HTMLElement>('[aria-haspopup="menu"]')?.focus();
          onClose();
        } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
          e.preventDefault();
          items[(at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
        }
      }}
      onFocusOut={(e) => {
        const menu = e.currentTarget;
        const to = e.relatedTarget as Node | null;
        if (to) {
          if (!menu.parentElement?.contains(to)) onClose();
          return;
        }
        // Nowhere: the page left, or the focused item itself taken away as the menu changed ("Mark all as read"
        // once all is read), which the browser tells the same way. Only the item's being gone tells them apart.
        const from = e.target as HTMLElement;
        setTimeout(() => {
          if (!menu.isConnected) return;
          if (from.isConnected) onClose();
          else if (!menu.contains(document.activeElement)) menu.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
        });
      }}
    >
      {children}
    </div>
  );
}

/**
 * A dialog's tabs (the help's, the Channels dialog's, Manage user's): a
 * button each, the chosen one marked. The left and right arrow keys (Home,
 * End) choose the tab before or after the focused one, and focus it.
 */
export function Tabs<T extends string>({ label, tabs, current, onChoose }: { label: string; tabs: Array<[T, string]>; current: T; onChoose(tab: T): void }) {
  const onKeyDown = (e: KeyboardEvent) => {
    const buttons = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLButtonElement>('[role="tab"]')];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    const next = (to + tabs.length) % tabs.length;
    onChoose(tabs[next]![0]);
    buttons[next]?.focus();
  };
  return (
    <div class="tab-row" role="tablist" aria-label={label} onKeyDown={onKeyDown}>
      {tabs.map(([t, name]) => (
        <button type="button" role="tab" key={t} class={cx('btn small', t === current && 'primary')} aria-selected={t === current} onClick={() => onChoose(t)}>
          {name}
        </button>
      ))}
    </div>
  );
}
