/**
 * The keys the client answers to, once: the help lists them (ui/Help.tsx),
 * and App and the message list, which handle them, leave those that are not
 * for a logged-out visitor (Zulip's spectator) alone for one.
 */
export interface Shortcut {
  /** As the help shows it. */
  label: string;
  what: string;
  /** The `KeyboardEvent.key` values it stands for, without Ctrl (Ctrl+k and Ctrl+s are handled apart). */
  keys: string[];
  /** A visitor may use it: it searches, moves or shows, and changes nothing. */
  visitor: boolean;
}

const key = (label: string, what: string, keys: string[], visitor = false): Shortcut => ({ label, what, keys, visitor });

export const SHORTCUTS: Shortcut[] = [
  key('?', 'Show these keyboard shortcuts', ['?'], true),
  key('/ Ctrl+k', 'Search', ['/'], true),
  key('c', 'New channel message', ['c']),
  key('x', 'New direct message', ['x']),
  key('n', 'Next topic with unread messages', ['n']),
  key('N', 'Next followed topic with unread messages', ['N']),
  key('p', 'Next direct-message conversation with unread messages', ['p']),
  key('I', 'Inbox', ['I']),
  key('t', 'Recent conversations', ['t'], true),
  key('a', 'All messages', ['a'], true),
  key('P', 'Direct messages', ['P']),
  key('d', 'Drafts', ['d']),
  key('A / D', 'The previous / next channel of the sidebar', ['A', 'D'], true),
  key('q', 'Filter channels', ['q'], true),
  key('w', 'Filter people', ['w']),
  key('\u2193 j / \u2191 k', 'Select the next / previous message', ['ArrowDown', 'j', 'ArrowUp', 'k'], true),
  key('Home', 'Jump to the oldest message and select it', ['Home'], true),
  key('End G', 'Jump to the newest message and select it', ['End', 'G'], true),
  key('J / K', 'Page down / up', ['J', 'K'], true),
  key('Enter r', 'Reply to the selected message', ['Enter', 'r']),
  key('R', 'Reply to the selected message\u2019s sender in a direct message', ['R']),
  key('@', 'Reply to the selected message, mentioning its sender', ['@']),
  key('>', 'Quote and reply to the selected message', ['>']),
  key('e', 'Edit the selected message (or see its Markdown)', ['e']),
  key('\u2190', 'Edit your last message', ['ArrowLeft']),
  key('Ctrl+s', 'Star or unstar the selected message', []),
  key('+', 'React to the selected message with \u{1f44d}', ['+']),
  key('=', 'Add your vote to (or take it from) the selected message\u2019s first reaction', ['=']),
  key(':', 'Add a reaction to the selected message', [':']),
  key('i', 'The selected message\u2019s actions', ['i']),
  key('u', 'The sender\u2019s card', ['u']),
  key('s / S', 'Go to the selected message\u2019s conversation / channel', ['s', 'S'], true),
  key('U', 'Mark as unread from the selected message', ['U']),
  key('M', 'Mute or unmute the selected message\u2019s topic', ['M']),
  key('H', 'The selected message\u2019s edit history', ['H']),
  key('V', 'The selected message\u2019s read receipts', ['V']),
  key('-', 'Collapse or expand the selected message', ['-']),
  key('v', 'Show the selected message\u2019s image', ['v'], true),
];

/** The `KeyboardEvent.key` values that do nothing for a visitor. */
export const NOT_FOR_VISITORS: ReadonlySet<string> = new Set(SHORTCUTS.filter((s) => !s.visitor).flatMap((s) => s.keys));
