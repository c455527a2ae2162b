/**
 * The Zulip message object (GET /messages, message events) and the
 * Markdown rendering context (users, groups, channels preloaded).
 */
import type { SubmessageRow } from '../store/submessages.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import type { UserRow } from '../store/users.ts';
import { cachedCustomEmoji, cachedGroups, cachedLinkifiers, cachedReactions, cachedRealm, cachedStreams, cachedSubmessages, cachedUsers, type CustomEmoji } from './cache.ts';
import { apiRecipientId, directGroupMembers, latestTopicMessageId, RECIPIENT, type MessageRow } from '../store/messages.ts';
import { MarkdownRenderingError, topicLinks, type RenderResult } from '../markdown/index.ts';
import type { Linkifier } from '../markdown/linkifiers.ts';
import type { RenderData, RenderOptions } from '../markdown/pool.ts';
import type { EmbedData } from '../markdown/previews.ts';
import { badRequest } from '../lib/errors.ts';
import { avatarUrl } from './users-format.ts';
import { visibleEditHistory } from '../lib/realm-settings.ts';
import { isResolveOrUnresolve } from '../lib/topic.ts';
import { UPLOADS_PATH_PREFIX } from '../lib/static-paths.ts';
import { attachmentsByPathIds } from '../store/attachments.ts';
import { AUDIO_INLINE_MIME_TYPES } from '../lib/mime-types.ts';

/** Users and channels of the organization, loaded once per operation. */
export interface Directory {
  users: ReadonlyMap<number, UserRow>;
  streams: ReadonlyMap<number, { id: number; name: string }>;
  realmStr: string;
  emptyTopicDisplayName: string;
  /** The organization's message_edit_history_visibility_policy: 'all', 'moves' or 'none'. */
  editHistoryPolicy: string;
  defaultCodeBlockLanguage: string;
  /** The organization's inline_image_preview: image and video previews in messages. */
  inlineImagePreview: boolean;
  /** The organization's inline_url_embed_preview: website previews in messages. */
  urlEmbedPreview: boolean;
  /** The organization's linkifiers (message content and topic_links). */
  linkifiers: Linkifier[];
  /** Active custom emoji by name (for rendering). */
  customEmoji: CustomEmoji;
}

export async function loadDirectory(svc: Services, db: Tx): Promise<Directory> {
  const [users, streams, realm, linkifiers, customEmoji] = await Promise.all([
    cachedUsers(svc, db),
    cachedStreams(svc, db),
    cachedRealm(svc, db),
    cachedLinkifiers(svc, db),
    cachedCustomEmoji(svc, db),
  ]);
  const s = realm.settings;
  return {
    users: users.byId,
    streams: streams.byId,
    realmStr: realm.row.string_id,
    emptyTopicDisplayName: String(s.empty_topic_display_name),
    editHistoryPolicy: String(s.message_edit_history_visibility_policy),
    defaultCodeBlockLanguage: String(s.default_code_block_language ?? ''),
    inlineImagePreview: s.inline_image_preview !== false,
    urlEmbedPreview: s.inline_url_embed_preview === true,
    linkifiers,
    customEmoji,
  };
}

/** A link to an upload in message source: its path_id (Zulip's `/user_uploads/(\d+/[/\w.-]+)`). */
const UPLOAD_LINK_RE = /\/user_uploads\/(\d+\/[/\p{L}\p{N}\p{M}_.-]+)/gu;
/** Paths looked up per message: more distinct links than Zulip previews (24) get no previews anyway. */
const MAX_PREVIEWED_UPLOADS = 100;
/** A topic link in message source, `#**channel>topic**` (message links, `topic@123`, are left out as Zulip's possible_linked_topics users do). */
const TOPIC_LINK_RE = /#\*\*([^*>]+)>([^*]*)\*\*/g;
/** Topics looked up per message. */
const MAX_LINKED_TOPICS = 100;

/**
 * What the renderer may look up for `content`, as plain data for the worker
 * threads: only the users, groups and channels whose names (or user IDs)
 * occur in the text, so a render never ships the whole directory.
 */
export async function renderData(svc: Services, db: Tx, content: string, dir?: Directory, embeds?: EmbedsFor): Promise<RenderData> {
  const text = content.toLowerCase();
  const d = dir ?? (await loadDirectory(svc, db));
  const data: RenderData = {
    users: [],
    groups: [],
    streams: [],
    customEmoji: [],
    linkifiers: d.linkifiers,
    realmUrl: svc.config.externalUrl,
    defaultCodeBlockLanguage: d.defaultCodeBlockLanguage,
    inlineImagePreview: d.inlineImagePreview && !embeds?.noPreviews,
    emptyTopicDisplayName: d.emptyTopicDisplayName,
  };
  // Website previews: for a message a person sent, where the organization wants them (Zulip's url_embed_preview_enabled).
  if (embeds && !embeds.byBot && !embeds.noPreviews && d.urlEmbedPreview) data.urlEmbeds = [...(embeds.known ?? [])];
  if (content.includes(':')) {
    for (const [name, e] of d.customEmoji) if (content.includes(`:${name}:`)) data.customEmoji.push(e);
  }
  if (content.includes(UPLOADS_PATH_PREFIX)) {
    // Uploads linked in the text, as Zulip's get_user_upload_previews finds them:
    // images (previews by thumbnail) and audio (players). Files uploaded before
    // images were read are left out unless audio: their previews go by name.
    const pathIds = [...new Set(Array.from(content.matchAll(UPLOAD_LINK_RE), (m) => m[1]!))];
    const rows = await attachmentsByPathIds(db, svc.realmId, pathIds.slice(0, MAX_PREVIEWED_UPLOADS));
    data.uploads = rows
      .filter((a) => a.image_frames !== null || AUDIO_INLINE_MIME_TYPES.has(a.content_type))
      .map((a) => [a.path_id, a.image_width ?? 0, a.image_height ?? 0, a.image_frames ?? 0, a.content_type]);
  }
  const mentions = text.includes('@');
  if (mentions || text.includes('#')) {
    if (mentions) {
      const ids = new Set((text.match(/\d+/g) ?? []).map(Number));
      for (const u of d.users.values()) {
        if (u.is_active && (ids.has(u.id) || text.includes(u.full_name.toLowerCase()))) data.users.push([u.id, u.full_name, u.email]);
      }
      for (const g of (await cachedGroups(svc, db)).byId.values()) {
        if (!g.deactivated && text.includes(g.name.toLowerCase())) data.groups.push([g.id, g.name]);
      }
    }
    for (const st of d.streams.values()) if (text.includes(st.name.toLowerCase())) data.streams.push([st.id, st.name]);
    if (content.includes('>')) data.topics = await linkedTopics(db, content, data.streams);
  }
  return data;
}

/**
 * The latest message of each topic linked in `content` (Zulip's topic_info,
 * for the `/with/` of topic links): the topics of `streams` that have messages.
 */
async function linkedTopics(db: Tx, content: string, streams: Array<[number, string]>): Promise<Array<[number, string, number]>> {
  const idByName = new Map(streams.map(([id, name]) => [name.toLowerCase(), id]));
  const seen = new Set<string>();
  const out: Array<[number, string, number]> = [];
  for (const m of content.matchAll(TOPIC_LINK_RE)) {
    const streamId = idByName.get(m[1]!.toLowerCase());
    const topic = m[2]!;
    const key = `${streamId}\n${topic.toLowerCase()}`;
    if (streamId === undefined || /@\d+$/.test(topic) || seen.has(key)) continue;
    if (seen.size >= MAX_LINKED_TOPICS) break;
    seen.add(key);
    const id = await latestTopicMessageId(db, streamId, topic);
    if (id !== undefined) out.push([streamId, topic, id]);
  }
  return out;
}

/**
 * A message render's website previews: wanted unless its sender is a bot,
 * with what is known of its links' pages (none yet: the links wanted are in
 * the result's linksForPreview).
 */
export interface EmbedsFor {
  byBot: boolean;
  known?: ReadonlyMap<string, EmbedData | null>;
  /** No previews of linked images, videos or websites at all (Zulip's no_previews: an integration's links that need a login). */
  noPreviews?: boolean;
}

/**
 * Renders a message's content in the worker pool; "Unable to render message"
 * when it cannot be rendered, as Zulip says. `embeds`: a message's content
 * (not a preview or a description), which may get website previews.
 */
export async function render(svc: Services, db: Tx, content: string, dir?: Directory, opts?: RenderOptions, embeds?: EmbedsFor): Promise<RenderResult> {
  const data = await renderData(svc, db, content, dir, embeds);
  try {
    return await svc.markdown.render(content, data, opts);
  } catch (e) {
    if (e instanceof MarkdownRenderingError) {
      svc.log.warn({ err: e.message, length: content.length }, 'message rendering failed');
      throw badRequest('Unable to render message');
    }
    throw e;
  }
}

export interface FormatOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
}

/**
 * topic_links of a topic under a set of linkifiers, remembered: a page of
 * messages mostly repeats a few topics, and the web-link pattern is large.
 * Kept per linkifier list (a new list when linkifiers change), up to 2,000
 * topics. The lists are shared: never modify them.
 */
const topicLinksMemo = new WeakMap<Linkifier[], Map<string, ReadonlyArray<{ url: string; text: string }>>>();

function cachedTopicLinks(topic: string, linkifiers: Linkifier[]): ReadonlyArray<{ url: string; text: string }> {
  let memo = topicLinksMemo.get(linkifiers);
  if (!memo) topicLinksMemo.set(linkifiers, (memo = new Map()));
  let links = memo.get(topic);
  if (!links) {
    links = Object.freeze(topicLinks(topic, linkifiers).map((l) => Object.freeze(l)));
    if (memo.size >= 2000) memo.clear();
    memo.set(topic, links);
  }
  return links;
}

/**
 * What a channel message's JSON depends on besides its row (messages whose
 * row, reactions or submessages change get new, frozen objects from the
 * caches in cache.ts; so do users, channels and linkifiers).
 */
interface KeptJson {
  users: Directory['users'];
  streams: Directory['streams'];
  linkifiers: Linkifier[];
  realmStr: string;
  emptyTopicDisplayName: string;
  editHistoryPolicy: string;
  reactions: unknown;
  submessages: unknown;
  options: number;
  /** The message object's JSON without its closing brace, in UTF-8. */
  json: Buffer;
}

/** The JSON of kept message rows, by row object: a row edited, moved or deleted is a new object. */
const keptJson = new WeakMap<MessageRow, KeptJson>();

const optionBits = (o: FormatOptions) => (o.applyMarkdown ? 1 : 0) | (o.clientGravatar ? 2 : 0) | (o.allowEmptyTopicName ? 4 : 0);

/**
 * The JSON of each message object of `formatMessages` in UTF-8, without its
 * closing brace (the caller adds `flags` and closes it). A channel message's
 * JSON is kept with its row object while nothing it shows has changed, so
 * reading the same messages again serializes nothing.
 */
export async function formatMessagesJson(svc: Services, db: Tx, rows: MessageRow[], dir: Directory, opts: FormatOptions): Promise<Buffer[]> {
  const withoutBrace = (d: Record<string, unknown>) => Buffer.from(JSON.stringify(d).slice(0, -1));
  const ids = rows.map((r) => r.id);
  const [reactions, submessages] = await Promise.all([cachedReactions(svc, ids, db), cachedSubmessages(svc, ids, db)]);
  const options = optionBits(opts);
  const out = new Array<Buffer>(rows.length);
  const missing: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const m = rows[i]!;
    const k = keptJson.get(m);
    if (
      k &&
      k.options === options &&
      k.reactions === reactions.get(m.id) &&
      k.submessages === submessages.get(m.id) &&
      k.users === dir.users &&
      k.streams === dir.streams &&
      k.linkifiers === dir.linkifiers &&
      k.realmStr === dir.realmStr &&
      k.emptyTopicDisplayName === dir.emptyTopicDisplayName &&
      k.editHistoryPolicy === dir.editHistoryPolicy
    ) {
      out[i] = k.json;
    } else {
      missing.push(i);
    }
  }
  if (missing.length === 0) return out;
  const dicts = await formatMessages(svc, db, missing.map((i) => rows[i]!), dir, opts);
  for (let j = 0; j < missing.length; j++) {
    const i = missing[j]!;
    const m = rows[i]!;
    const json = withoutBrace(dicts[j]!);
    out[i] = json;
    // A direct message shows its participants, read anew each time: not kept.
    if (m.recipient_type !== RECIPIENT.STREAM) continue;
    keptJson.set(m, {
      users: dir.users,
      streams: dir.streams,
      linkifiers: dir.linkifiers,
      realmStr: dir.realmStr,
      emptyTopicDisplayName: dir.emptyTopicDisplayName,
      editHistoryPolicy: dir.editHistoryPolicy,
      reactions: reactions.get(m.id),
      submessages: submessages.get(m.id),
      options,
      json,
    });
  }
  return out;
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
  const [reactions, participants, submessages] = await Promise.all([cachedReactions(svc, ids, db), dmParticipants(db, rows), cachedSubmessages(svc, ids, db)]);
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
      topic_links: m.recipient_type === RECIPIENT.STREAM ? cachedTopicLinks(m.topic, dir.linkifiers) : [],
      is_me_message: !!m.is_me_message,
      reactions: (reactions.get(m.id) ?? []).map((r) => ({ emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, user_id: r.user_id })),
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
      const h = m.edit_history_json ? (JSON.parse(m.edit_history_json) as unknown) : null;
      if (Array.isArray(h) && h.length) {
        const { edited, moved } = lastEditAndMove(h as HistoryEntry[]);
        if (edited !== null) out.last_edit_timestamp = edited;
        if (moved !== null) out.last_moved_timestamp = moved;
        if (dir.editHistoryPolicy !== 'none') {
          const visible = visibleEditHistory(dir.editHistoryPolicy, h as object[]);
          if (visible.length) out.edit_history = visible;
        }
      } else {
        // An edit time without its history (imported): taken as a content edit.
        out.last_edit_timestamp = Math.floor(m.last_edit_time);
      }
    }
    return out;
  });
}

interface HistoryEntry {
  timestamp: number;
  prev_content?: string;
  prev_topic?: string;
  topic?: string;
  prev_stream?: number;
}

/**
 * When the content was last edited and when the message last moved (FL 365):
 * a move is a change of channel, or of topic other than resolving or
 * unresolving it. Null where there was none.
 */
export function lastEditAndMove(history: readonly HistoryEntry[]): { edited: number | null; moved: number | null } {
  let edited: number | null = null;
  let moved: number | null = null;
  for (const e of history) {
    const at = Math.floor(e.timestamp);
    if (e.prev_content !== undefined) edited = Math.max(edited ?? at, at);
    const topicMove = e.prev_topic !== undefined && e.topic !== undefined && !isResolveOrUnresolve(e.prev_topic, e.topic);
    if (e.prev_stream !== undefined || topicMove) moved = Math.max(moved ?? at, at);
  }
  return { edited, moved };
}
