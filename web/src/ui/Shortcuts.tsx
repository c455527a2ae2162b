import { model } from '../model.ts';
import { Dialog } from './Dialog.tsx';

/** The keys the client answers to, as the help lists them (App handles the global ones). */
const SHORTCUTS: Array<[string, string]> = [
  ['?', 'Show these keyboard shortcuts'],
  ['/ Ctrl+k', 'Search'],
  ['c', 'New channel message'],
  ['x', 'New direct message'],
  ['n', 'Next topic with unread messages'],
  ['N', 'Next followed topic with unread messages'],
  ['p', 'Next direct-message conversation with unread messages'],
  ['I', 'Inbox'],
  ['t', 'Recent conversations'],
  ['a', 'All messages'],
  ['P', 'Direct messages'],
  ['d', 'Drafts'],
  ['A / D', 'The previous / next channel of the sidebar'],
  ['q / w', 'Filter channels / people'],
  ['\u2193 j / \u2191 k', 'Select the next / previous message'],
  ['Home', 'Jump to the oldest message and select it'],
  ['End G', 'Jump to the newest message and select it'],
  ['J / K', 'Page down / up'],
  ['Enter r', 'Reply to the selected message'],
  ['R', 'Reply to the selected message\u2019s sender in a direct message'],
  ['@', 'Reply to the selected message, mentioning its sender'],
  ['>', 'Quote and reply to the selected message'],
  ['e', 'Edit the selected message (or see its Markdown)'],
  ['\u2190', 'Edit your last message'],
  ['Ctrl+s', 'Star or unstar the selected message'],
  ['+', 'React to the selected message with \u{1f44d}'],
  ['=', 'Add your vote to (or take it from) the selected message\u2019s first reaction'],
  [':', 'Add a reaction to the selected message'],
  ['i', 'The selected message\u2019s actions'],
  ['u', 'The sender\u2019s card'],
  ['s / S', 'Go to the selected message\u2019s conversation / channel'],
  ['U', 'Mark as unread from the selected message'],
  ['M', 'Mute or unmute the selected message\u2019s topic'],
  ['H', 'The selected message\u2019s edit history'],
  ['V', 'The selected message\u2019s read receipts'],
  ['-', 'Collapse or expand the selected message'],
  ['v', 'Show the selected message\u2019s image'],
];

/** The keys above that a logged-out visitor (Zulip's spectator) may use: searching, moving, reading. */
const SPECTATOR_KEYS = new Set(['?', '/ Ctrl+k', 't', 'a', 'A / D', '\u2193 j / \u2191 k', 'Home', 'End G', 'J / K', 's / S', 'v']);

/** The keys after those that send and start a new line in the compose box. */
const MORE_SHORTCUTS: Array<[string, string]> = [
  ['Ctrl+b / Ctrl+i', 'Bold / italic (in the compose box)'],
  ['Ctrl+Shift+l', 'A link (in the compose box)'],
  ['Ctrl+.', 'Go to the conversation the compose box writes to'],
  ["Ctrl+'", 'Your saved snippets (in the compose box)'],
  ['\u2191 \u2193', 'Move between conversations (Inbox, Recent conversations) and suggestions'],
];

/** The keyboard shortcuts (the ? key). */
export function Shortcuts({ onClose }: { onClose(): void }) {
  const sendKeys: Array<[string, string]> = model.settings.enter_sends
    ? [
        ['Enter', 'Send the message (in the compose box)'],
        ['Shift+Enter', 'New line (in the compose box)'],
      ]
    : [
        ['Ctrl+Enter', 'Send the message (in the compose box)'],
        ['Enter', 'New line (in the compose box)'],
      ];
  // Escape goes on to the home view as the user's web_escape_navigates_to_home_view says; Ctrl+[ always.
  const escape: Array<[string, string]> = [
    ['Esc', model.settings.web_escape_navigates_to_home_view !== false ? 'Close a dialog or a card; leave a field; else go to the home view' : 'Close a dialog or a card; leave a field'],
    ['Ctrl+[', 'As Esc, going to the home view in the end'],
  ];
  // Which keys send and which start a new line, as the user's enter_sends says. A logged-out
  // visitor's keys are those that read and move (App and the message list ignore the others).
  const shown = model.spectator
    ? [...SHORTCUTS.filter(([key]) => SPECTATOR_KEYS.has(key)), ['q', 'Filter channels'] as [string, string], ...escape]
    : [...SHORTCUTS, ...sendKeys, ...MORE_SHORTCUTS, ...escape];
  return (
    <Dialog id="shortcuts-title" title="Keyboard shortcuts" onClose={onClose}>
      <table class="shortcuts" aria-labelledby="shortcuts-title">
        <tbody>
          {shown.map(([key, what]) => (
            <tr key={key}>
              <td>
                <kbd>{key}</kbd>
              </td>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
