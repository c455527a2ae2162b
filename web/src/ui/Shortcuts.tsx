import { model } from '../model.ts';
import { Dialog } from './Dialog.tsx';
import { SHORTCUTS } from '../shortcuts.ts';

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
  const keys = SHORTCUTS.filter((s) => s.visitor || !model.spectator).map((s): [string, string] => [s.label, s.what]);
  const shown = model.spectator ? [...keys, ...escape] : [...keys, ...sendKeys, ...MORE_SHORTCUTS, ...escape];
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
