import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { model } from '../model.ts';
import { cx, useStoredSet } from '../util.ts';
import { narrowToHash, placeKey, placeTerms, type Term } from '../narrow.ts';
import { arrowsBetween, dmLabel, UnreadCell } from './Recent.tsx';

/** A conversation with unread messages. */
interface Row {
  key: string;
  terms: Term[];
  /** The topic, or the people. */
  label: string;
  /** What its "mark as read" button names. */
  fullLabel: string;
  unread: number;
  mentioned: boolean;
  /** Its newest unread message. */
  newest: number;
}

interface Group {
  key: string;
  label: string;
  /** The section of the sidebar's its channel is in (pinned, a folder, or the others), when channel folders are shown. */
  folder?: string;
  /** The channel's narrow (none for direct messages). */
  terms: Term[] | null;
  rows: Row[];
}

/**
 * The conversations with unread messages, from the unread state the server
 * gave and its events keep: direct messages first, then the channels in the
 * left sidebar's order; within each, the newest unread first. What All
 * messages' count leaves out is left out here too (muted channels and
 * topics, channels left), and so are conversations with muted users only.
 */
function groups(): Group[] {
  const dms = new Map<string, Row>();
  const topics = new Map<number, Map<string, Row>>();
  for (const [id, u] of model.unread) {
    if (!model.inInbox(u) || (u.kind === 'dm' && !u.dmKey)) continue;
    const dm = u.kind === 'dm';
    let rows = dm ? dms : topics.get(u.streamId!);
    if (!rows) topics.set(u.streamId!, (rows = new Map()));
    const key = placeKey(u);
    let row = rows.get(key);
    if (!row) {
      const label = dm ? dmLabel(u.dmKey!).label : u.topic || '(no topic)';
      row = { key, terms: placeTerms(u), label, fullLabel: dm ? label : `#${model.streamName(u.streamId)} \u203a ${label}`, unread: 0, mentioned: false, newest: 0 };
      rows.set(key, row);
    }
    row.unread++;
    row.mentioned ||= u.mentioned;
    row.newest = Math.max(row.newest, id);
  }
  const newestFirst = (a: Row, b: Row) => b.newest - a.newest;
  const out: Group[] = [];
  if (dms.size) out.push({ key: 'dm', label: 'Direct messages', terms: null, rows: [...dms.values()].sort(newestFirst) });
  // Channel folders (the user's web_inbox_show_channel_folders, on by default): the sidebar's sections, each under its heading.
  const { pinned, others, folders } = model.channelSections(model.sidebarChannels(), model.settings.web_inbox_show_channel_folders !== false);
  const sections = folders ? [...(pinned.length ? [{ label: 'Pinned channels', subs: pinned }] : []), ...folders] : [{ label: undefined, subs: [...pinned, ...others] }];
  for (const section of sections) {
    for (const sub of section.subs) {
      const byTopic = topics.get(sub.stream_id);
      if (byTopic) out.push({ key: `c${sub.stream_id}`, label: `#${sub.name}`, folder: section.label, terms: [{ operator: 'channel', operand: sub.stream_id }], rows: [...byTopic.values()].sort(newestFirst) });
    }
  }
  return out;
}

function Mention({ on }: { on: boolean }) {
  return on ? (
    <span class="inbox-mention" title="You are mentioned" aria-label="mentioned">
      @
    </span>
  ) : null;
}

/**
 * The inbox (#inbox): every conversation with unread messages, grouped (direct
 * messages, then each channel), each with its unread count, an @ where the
 * user is mentioned, a link to it and a button marking it read. A text
 * filters the conversations (by channel, topic or people); a group can be
 * collapsed to its heading (remembered in this browser). The arrow keys move
 * between the links.
 */
export function Inbox() {
  const [text, setText] = useState('');
  // The groups collapsed to their headings, kept in this browser.
  const [collapsed, toggle] = useStoredSet(`parley-inbox-collapsed:${model.me.user_id}`);
  const needle = text.trim().toLowerCase();
  const all = groups();
  const shown = all
    .map((g) => ({ ...g, shownRows: needle ? g.rows.filter((r) => r.fullLabel.toLowerCase().includes(needle)) : g.rows }))
    .filter((g) => g.shownRows.length > 0);
  return (
    <section class="inbox" aria-label="Inbox" onKeyDown={arrowsBetween('a.inbox-link')}>
      {all.length > 0 && (
        <div class="recent-filters">
          <input type="search" aria-label="Filter conversations" placeholder="Filter conversations" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </div>
      )}
      {all.length === 0 && <p class="empty">There are no unread messages in your inbox.</p>}
      {all.length > 0 && shown.length === 0 && <p class="side-empty">No conversations match.</p>}
      {shown.map((g, i) => {
        const unread = g.rows.reduce((n, r) => n + r.unread, 0);
        const open = !collapsed.has(g.key);
        const folderHeading = g.folder !== undefined && g.folder !== shown[i - 1]?.folder;
        // Under a folder's heading, a level below it.
        const Heading = g.folder !== undefined ? 'h3' : 'h2';
        return (
          <Fragment key={g.key}>
            {folderHeading && <h2 class="inbox-folder">{g.folder}</h2>}
            <section class="inbox-group" aria-label={g.label}>
              <Heading class="inbox-heading">
                <button type="button" class="icon-btn inbox-toggle" aria-expanded={open} aria-label={`${g.label} conversations`} title={open ? 'Collapse' : 'Expand'} onClick={() => toggle(g.key)}>
                  {open ? '\u25be' : '\u25b8'}
                </button>
                {g.terms ? (
                  <a class="inbox-link" href={narrowToHash(g.terms)}>
                    {g.label}
                  </a>
                ) : (
                  g.label
                )}{' '}
                <span class="muted-text" aria-label={`${unread} unread`}>
                  {unread}
                </span>
                <Mention on={g.rows.some((r) => r.mentioned)} />
              </Heading>
              {open && (
                <ul class="inbox-rows">
                  {g.shownRows.map((r) => (
                    <li key={r.key} aria-label={r.fullLabel}>
                      <a class={cx('inbox-link', g.key !== 'dm' && model.isGeneralChat(r.label) && 'general-chat')} href={narrowToHash(r.terms)}>
                        {r.label}
                      </a>
                      <Mention on={r.mentioned} />
                      <UnreadCell label={r.fullLabel} terms={r.terms} unread={r.unread} />
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </Fragment>
        );
      })}
    </section>
  );
}
