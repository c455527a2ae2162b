import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model } from '../model.ts';
import { Dialog, Tabs } from './Dialog.tsx';
import { SHORTCUTS } from '../shortcuts.ts';
import { prepareHtml, useModel } from '../util.ts';
import type { HelpTab } from '../overlays.ts';

/** The keys after those that send and start a new line in the compose box. */
const MORE_SHORTCUTS: Array<[string, string]> = [
  ['Ctrl+b / Ctrl+i', 'Bold / italic (in the compose box)'],
  ['Ctrl+Shift+l', 'A link (in the compose box)'],
  ['Ctrl+.', 'Go to the conversation the compose box writes to'],
  ["Ctrl+'", 'Your saved snippets (in the compose box)'],
  ['\u2191 \u2193', 'Move between conversations (Inbox, Recent conversations) and suggestions'],
];

const TABS: Array<[HelpTab, string]> = [
  ['keyboard-shortcuts', 'Keyboard shortcuts'],
  ['message-formatting', 'Message formatting'],
  ['search-operators', 'Search filters'],
];

/**
 * The help (the ? key, and Zulip's addresses #keyboard-shortcuts,
 * #message-formatting and #search-operators): the keys, how to format a
 * message, the search's filters, one tab each. The dialog is named for the
 * tab shown; opened at an address, a tab chosen puts its own there.
 */
export function Help({ tab: first, onClose }: { tab: HelpTab; onClose(): void }) {
  const [tab, setTab] = useState(first);
  const choose = (t: HelpTab) => {
    setTab(t);
    if (TABS.some(([name]) => location.hash === `#${name}`)) history.replaceState(null, '', `#${t}`);
  };
  return (
    <Dialog id="help-title" title={TABS.find(([t]) => t === tab)![1]} onClose={onClose}>
      <Tabs label="Help" tabs={TABS} current={tab} onChoose={choose} />
      {tab === 'keyboard-shortcuts' ? <Shortcuts /> : tab === 'message-formatting' ? <Formatting /> : <SearchFilters />}
      <p class="muted-text">
        <a href="#about-zulip">About this server</a>
      </p>
    </Dialog>
  );
}

/**
 * What this server is (Zulip's #about-zulip): its version and the Zulip API
 * feature level it speaks, as /register gave them, and its licence.
 */
export function About({ onClose }: { onClose(): void }) {
  const realm = model.realm;
  return (
    <Dialog id="about-title" title="About Parley" onClose={onClose}>
      <dl class="about">
        <dt>Server version</dt>
        <dd>{String(realm.zulip_version ?? '')}</dd>
        <dt>Zulip API feature level</dt>
        <dd>{String(realm.zulip_feature_level ?? '')}</dd>
      </dl>
      <p>Parley is a team-chat server that speaks the Zulip API, so Zulip's mobile, terminal and desktop apps and its client libraries work with it too.</p>
      <p class="muted-text">Free software, under the Apache License 2.0.</p>
    </Dialog>
  );
}

/** The keyboard shortcuts. */
function Shortcuts() {
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
    <table class="shortcuts" aria-labelledby="help-title">
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
  );
}

/** An example of the message formatting: what one types, and (where the server renders it as it is) what it shows, else what it does. */
interface Example {
  type: string;
  does: string;
  rendered?: boolean;
}

/** The formatting examples, with the user's own name and a channel of theirs where an example needs one. */
function examples(): Example[] {
  const me = model.me?.full_name ?? 'Someone';
  const channel = model.activeSubs()[0];
  const tomorrow = new Date();
  tomorrow.setDate(tomorrow.getDate() + 1);
  tomorrow.setHours(15, 0, 0, 0);
  const out: Example[] = [
    { type: '**bold**', does: 'Bold' },
    { type: '*italic*', does: 'Italic' },
    { type: '~~strikethrough~~', does: 'Struck through' },
    { type: '[Parley](https://example.com)', does: 'A link with its own text' },
    { type: `@**${me}**`, does: 'Mentions someone (they are notified)' },
    { type: `@_**${me}**`, does: 'Names someone without notifying them' },
  ];
  if (channel) out.push({ type: `#**${channel.name}**`, does: 'A link to a channel' }, { type: `#**${channel.name}>lunch**`, does: 'A link to a topic' });
  out.push(
    { type: '`code`', does: 'Code in a line' },
    { type: '```python\nprint("hello")\n```', does: 'A block of code, highlighted for its language' },
    { type: '> quoted text', does: 'A quote' },
    { type: '* milk\n* bread', does: 'A list' },
    { type: '1. wake up\n2. coffee', does: 'A numbered list' },
    { type: ':smile: :tada:', does: 'Emoji, by name' },
    { type: '$$e^{i\\pi} + 1 = 0$$', does: 'Mathematics (LaTeX)' },
    { type: `<time:${tomorrow.toISOString().replace(/\.000Z$/, 'Z')}>`, does: 'A time, shown to each reader in their own time zone' },
    { type: '```spoiler The answer\nForty-two\n```', does: 'Hidden until the reader opens it' },
    { type: '| Day | Dish |\n| --- | --- |\n| Monday | Soup |', does: 'A table' },
    { type: '/poll Where shall we eat?\nPizza\nNoodles', does: 'A poll: the question, then an option on each line (at the start of a message)', rendered: false },
    { type: '/todo Before Friday\nTests\nRelease notes', does: 'A to-do list, a task on each line (at the start of a message)', rendered: false },
  );
  return out;
}

/** The examples the server has rendered in this page's life, by what one types. */
const renderedExamples = new Map<string, string>();
/** A paragraph between the examples in the one request that renders them all. */
const SEPARATOR = 'PARLEY-EXAMPLE-SEPARATOR';

/** How to format a message: what one types, and what the server makes of it (rendered by the server, in one request, for those logged in). */
function Formatting() {
  useModel();
  const list = examples();
  const [, setDone] = useState(0);
  useEffect(() => {
    const missing = list.filter((e) => e.rendered !== false && !renderedExamples.has(e.type));
    if (!missing.length || model.spectator) return;
    void api('POST', '/messages/render', { content: missing.map((e) => e.type).join(`\n\n${SEPARATOR}\n\n`) })
      .then((r) => {
        const parts = (r.rendered as string).split(`<p>${SEPARATOR}</p>`);
        // (Should an example not end where it should, none is shown rendered rather than a wrong one.)
        if (parts.length !== missing.length) return;
        missing.forEach((e, i) => renderedExamples.set(e.type, parts[i]!.trim()));
        setDone((n) => n + 1);
      })
      .catch(() => undefined);
  }, []);
  return (
    <table class="shortcuts help-examples" aria-labelledby="help-title">
      <thead>
        <tr>
          <th scope="col">You type</th>
          <th scope="col">You get</th>
        </tr>
      </thead>
      <tbody>
        {list.map((e) => {
          const html = renderedExamples.get(e.type);
          return (
            <tr key={e.type}>
              <td>
                <pre>
                  <code>{e.type}</code>
                </pre>
              </td>
              <td>{html !== undefined ? <div class="message-content rendered" title={e.does} dangerouslySetInnerHTML={{ __html: prepareHtml(html) }} /> : e.does}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The search's filters: what to type in the search box, and what it finds. */
const FILTERS: Array<[string, string]> = [
  ['lunch menu', 'Messages with these words'],
  ['"lunch menu"', 'Messages with these words together, in this order'],
  ['channel:general', 'Messages in a channel'],
  ['channel:general topic:lunch', 'Messages in a topic of a channel'],
  ['sender:me', 'Messages you sent (or give an email address: sender:alice@example.com)'],
  ['dm:alice@example.com', 'Your direct messages with someone (with several people: their addresses separated by commas)'],
  ['dm-including:alice@example.com', 'Your direct messages that someone is in'],
  ['is:dm', 'All your direct messages'],
  ['is:starred', 'Messages you starred'],
  ['is:mentioned', 'Messages that mention you'],
  ['is:alerted', 'Messages with one of your alert words'],
  ['is:unread', 'Messages you have not read'],
  ['is:followed', 'Messages in topics you follow'],
  ['is:resolved', 'Messages in resolved topics'],
  ['has:link', 'Messages with a link'],
  ['has:image', 'Messages with an image'],
  ['has:attachment', 'Messages with an uploaded file'],
  ['has:reaction', 'Messages with emoji reactions'],
  ['-topic:lunch', 'A dash before a filter leaves out what it finds'],
];

/** A filter with places to wrap it in a narrow window: after each colon and before an address's @, not inside a word. */
function breakable(filter: string) {
  return filter.split(/(?<=:)|(?=@)/).map((part, i) => (
    <Fragment key={i}>
      {i > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}

/** The search's filters, which combine: each narrows down what the others find. */
function SearchFilters() {
  return (
    <>
      <p>Type these in the search box (/); put several together to find messages that match them all.</p>
      <table class="shortcuts help-examples search-filters" aria-labelledby="help-title">
        <thead>
          <tr>
            <th scope="col">Filter</th>
            <th scope="col">Finds</th>
          </tr>
        </thead>
        <tbody>
          {FILTERS.map(([filter, finds]) => (
            <tr key={filter}>
              <td>
                <code>{breakable(filter)}</code>
              </td>
              <td>{finds}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
