/**
 * The Zulip message object (GET /messages, message events) and the
 * Markdown rendering context (users, groups, channels preloaded).
 */
import { submessagesFor, type SubmessageRow } from '../store/submessages.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { allUsers, type UserRow } from '../store/users.ts';
import { allGroups } from '../store/groups.ts';
import { allStreams } from '../store/streams.ts';
import { realmById } from '../store/realm.ts';
import { apiRecipientId, directGroupMembers, reactionsFor, RECIPIENT, type MessageRow } from '../store/messages.ts';
import { renderMarkdown, topicLinks, type MarkdownContext, type RenderResult } from '../markdown/index.ts';
import type { Linkifier } from '../markdown/linkifiers.ts';
import { linkifiersForRendering } from './linkifiers.ts';
import { activeEmojiForRendering } from './realm-emoji.ts';
import { avatarUrl } from './users-format.ts';
import { realmSettings } from '../lib/realm-settings.ts';

/** Users and channels of the organization, loaded once per operation. */
export interface Directory {
  users: Map<number, UserRow>;
  streams: Map<number, { id: number; name: string }>;
  realmStr: string;
  emptyTopicDisplayName: string;
  allowEditHistory: boolean;
  /** The organization's linkifiers (message content and topic_links). */
  linkifiers: Linkifier[];
  /** Active custom emoji by name (for rendering). */
  customEmoji: Map<string, { id: string; name: string; source_url: string }>;
}

export async function loadDirectory(svc: Services, db: Tx): Promise<Directory> {
  const [users, streams, realm, linkifiers, customEmoji] = await Promise.all([
    allUsers(db, svc.realmId),
    allStreams(db, svc.realmId),
    realmById(db, svc.realmId),
    linkifiersForRendering(db, svc.realmId),
    activeEmojiForRendering(db, svc.realmId),
  ]);
  const s = realmSettings(realm.settings_json);
  return {
    users: new Map(users.map((u) => [u.id, u])),
    streams: new Map(streams.map((st) => [st.id, { id: st.id, name: st.name }])),
    realmStr: realm.string_id,
    emptyTopicDisplayName: String(s.empty_topic_display_name),
    allowEditHistory: s.allow_edit_history !== false,
    linkifiers,
    customEmoji,
  };
}

export async function markdownContext(svc: Services, db: Tx, dir?: Directory): Promise<MarkdownContext> {
  const d = dir ?? (await loadDirectory(svc, db));
  const groups = (await allGroups(db, svc.realmId)).filter((g) => !g.deactivated);
  const active = [...d.users.values()].filter((u) => u.is_active);
  const byName = new Map<string, UserRow | null>();
  for (const u of active) {
    const k = u.full_name.toLowerCase();
    byName.set(k, byName.has(k) ? null : u);
  }
  const streamsByName = new Map([...d.streams.values()].map((s) => [s.name.toLowerCase(), s]));
  const groupsByName = new Map(groups.map((g) => [g.name.toLowerCase(), { id: g.id, name: g.name }]));
  const person = (u: UserRow | null | undefined) => (u ? { id: u.id, full_name: u.full_name, email: u.email } : undefined);
  return {
    userByFullName: (name) => person(byName.get(name.toLowerCase())),
    userById: (id) => {
      const u = d.users.get(id);
      return u && u.is_active ? person(u) : undefined;
    },
    groupByName: (name) => groupsByName.get(name.toLowerCase()),
    streamByName: (name) => streamsByName.get(name.toLowerCase()),
    linkifiers: d.linkifiers,
    customEmojiByName: (name) => d.customEmoji.get(name),
    realmUrl: svc.config.externalUrl,
  };
}

export async function render(svc: Services, db: Tx, content: string, dir?: Directory): Promise<RenderResult> {
  return renderMarkdown(content, await markdownContext(svc, db, dir));
}

export interface FormatOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
}

/** A submessage as message objects and `submessage` events carry it. */
export const formatSubmessage = (s: SubmessageRow) => ({ id: s.id, message_id: s.message_id, sender_id: s.sender_id, msg_type: s.msg_type, content: s.content });

/** Participants of each direct message, by message ID (sorted user IDs). */
export async function dmParticipants(db: Tx, rows: MessageRow[]): Promise<Map<number, number[]>> {
  const groups = await directGroupMembers(
    db,
    rows.filter((r) => r.recipient_type === RECIPIENT.GROUP).map((r) => r.recipient_id),
  );
  const out = new Map<number, number[]>();
  for (const r of rows) {
    if (r.recipient_type === RECIPIENT.PERSONAL) out.set(r.id, [...new Set([r.sender_id, r.recipient_id])].sort((a, b) => a - b));
    else if (r.recipient_type === RECIPIENT.GROUP) out.set(r.id, groups.get(r.recipient_id) ?? []);
  }
  return out;
}

/**
 * Message objects as Zulip sends them, without `flags` (added by the
 * caller per user). Content per `applyMarkdown`.
 */
export async function formatMessages(svc: Services, db: Tx, rows: MessageRow[], dir: Directory, opts: FormatOptions): Promise<Array<Record<string, unknown>>> {
  const ids = rows.map((r) => r.id);
  const [reactions, participants, submessages] = await Promise.all([reactionsFor(db, ids), dmParticipants(db, rows), submessagesFor(db, ids)]);
  const byMsg = new Map<number, Array<Record<string, unknown>>>();
  for (const r of reactions) {
    let l = byMsg.get(r.message_id);
    if (!l) byMsg.set(r.message_id, (l = []));
    l.push({ emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, user_id: r.user_id });
  }
  return rows.map((m) => {
    const sender = dir.users.get(m.sender_id);
    const out: Record<string, unknown> = {
      id: m.id,
      sender_id: m.sender_id,
      content: opts.applyMarkdown ? m.rendered_content : m.content,
      recipient_id: apiRecipientId(m.recipient_type, m.recipient_id),
      timestamp: Math.floor(m.date_sent),
      client: m.sending_client,
      subject: m.recipient_type === RECIPIENT.STREAM ? (m.topic === '' && !opts.allowEmptyTopicName ? dir.emptyTopicDisplayName : m.topic) : '',
      topic_links: m.recipient_type === RECIPIENT.STREAM ? topicLinks(m.topic, dir.linkifiers) : [],
      is_me_message: !!m.is_me_message,
      reactions: byMsg.get(m.id) ?? [],
      submessages: (submessages.get(m.id) ?? []).map(formatSubmessage),
      sender_full_name: sender?.full_name ?? '',
      sender_email: sender?.email ?? '',
      sender_realm_str: dir.realmStr,
      display_recipient: '',
      type: m.recipient_type === RECIPIENT.STREAM ? 'stream' : 'private',
      avatar_url: sender ? avatarUrl(svc.config, sender, opts.clientGravatar) : null,
      content_type: opts.applyMarkdown ? 'text/html' : 'text/x-markdown',
    };
    if (m.recipient_type === RECIPIENT.STREAM) {
      out.stream_id = m.recipient_id;
      out.display_recipient = dir.streams.get(m.recipient_id)?.name ?? '';
    } else {
      out.display_recipient = (participants.get(m.id) ?? []).map((id) => {
        const u = dir.users.get(id);
        return { id, email: u?.email ?? '', full_name: u?.full_name ?? '', is_mirror_dummy: false };
      });
    }
    if (m.last_edit_time !== null) {
      out.last_edit_timestamp = Math.floor(m.last_edit_time);
      if (dir.allowEditHistory && m.edit_history_json) {
        const h = JSON.parse(m.edit_history_json) as unknown;
        if (Array.isArray(h)) out.edit_history = h;
      }
    }
    return out;
  });
}
