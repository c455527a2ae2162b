/**
 * The client's state: what /json/register returned, kept current by the
 * event queue, plus the message list of the narrow being viewed. Components
 * read it directly and re-render when `changed()` fires.
 */
import { api, ApiError, failureText, NetworkError } from './api.ts';
import { excludesMutedTopics, matches, opensAtFirstUnread, type LocalMessage, type MatchContext, type Place, type Term } from './narrow.ts';

export interface User {
  user_id: number;
  email: string;
  full_name: string;
  is_bot: boolean;
  is_active: boolean;
  role: number;
  /** An uploaded avatar's address on this server, or Gravatar's (realm_user update events change it). */
  avatar_url?: string | null;
  /** The user's values for the organization's custom profile fields, by field ID (not for bots). */
  profile_data?: Record<string, ProfileValue>;
  /** The real address, where the viewer may see it (null otherwise). */
  delivery_email?: string | null;
  /** An IANA time zone name, or '' when the user set none. */
  timezone?: string;
  /** ISO 8601. */
  date_joined?: string;
  bot_owner_id?: number | null;
  /** A bot's type: 1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded. */
  bot_type?: number | null;
  is_system_bot?: boolean;
}

/** One of a bot's services, as realm_bots and the realm_bot events give it: an outgoing webhook's endpoint and message format (1 Zulip, 2 Slack). */
export interface BotService {
  base_url?: string;
  interface?: number;
}

/** A realm_bots entry: a bot's settings (its name, address and state are in its user object). Its default channels are named. */
export interface BotSettings {
  user_id: number;
  services?: BotService[];
  default_sending_stream?: string | null;
  default_events_register_stream?: string | null;
  default_all_public_streams?: boolean;
}

/** A user's value for a custom profile field: text, a date, a URL, an option's key, or a JSON list of user IDs; rendered_value is the HTML of text fields. */
export interface ProfileValue {
  value: string;
  rendered_value?: string;
}

/**
 * A custom profile field, as /register's custom_profile_fields and the
 * custom_profile_fields events give it. `type`: 1 short text, 2 paragraph,
 * 3 list of options, 4 date, 5 link, 6 users, 7 external account, 8
 * pronouns. `field_data` is JSON: the options of a list (key -> {text,
 * order}), or an external account's subtype (and URL pattern); else empty.
 */
export interface ProfileField {
  id: number;
  name: string;
  type: number;
  hint: string;
  field_data: string;
  order: number;
  required?: boolean;
  editable_by_user?: boolean;
  display_in_profile_summary?: boolean;
}

export interface Sub {
  stream_id: number;
  name: string;
  color: string;
  pin_to_top: boolean;
  is_muted: boolean;
  description: string;
  /** The description as the server rendered it. */
  rendered_description: string;
  invite_only: boolean;
  /** The subscription's own notification choices (null: the user's defaults). */
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
  /**
   * Whether the channel has had messages lately (the server's
   * is_recently_active), or has one since the page loaded, or was joined
   * since then (Zulip's newly_subscribed): not demoted in the sidebar.
   */
  is_recently_active: boolean;
  /** The channel is archived: out of the sidebar and the channel pickers, its messages still readable. */
  is_archived: boolean;
}

/** A channel as /register's streams and the stream events give it (what the client reads of it). */
export interface Stream {
  stream_id: number;
  name: string;
  description?: string;
  /** The description as the server rendered it. */
  rendered_description?: string;
  invite_only?: boolean;
  history_public_to_subscribers?: boolean;
  is_web_public?: boolean;
  can_administer_channel_group?: GroupSettingValue;
  /** The channel folder it is in, if any. */
  folder_id?: number | null;
  /** How many users are subscribed (kept by the subscription events). */
  subscriber_count?: number;
  /** Zulip's topics_policy: inherit (the organization's), allow_empty_topic, disable_empty_topic or empty_topic_only. */
  topics_policy?: string;
  /** Who may post to it. */
  can_send_message_group?: GroupSettingValue;
  /** Who may subscribe others to it, and who may unsubscribe others. */
  can_add_subscribers_group?: GroupSettingValue;
  can_remove_subscribers_group?: GroupSettingValue;
  /** Who may subscribe themselves to it. */
  can_subscribe_group?: GroupSettingValue;
  /** Who may resolve its topics, move its messages between its topics, and move them out of it. */
  can_resolve_topics_group?: GroupSettingValue;
  can_move_messages_within_channel_group?: GroupSettingValue;
  can_move_messages_out_of_channel_group?: GroupSettingValue;
  /** Who may delete any message in it, and who their own. */
  can_delete_any_message_group?: GroupSettingValue;
  can_delete_own_message_group?: GroupSettingValue;
  /** Who may start new topics in it. */
  can_create_topic_group?: GroupSettingValue;
  is_archived?: boolean;
}

/** A file the user uploaded, as GET /attachments and the attachment events give it. */
export interface Attachment {
  id: number;
  name: string;
  path_id: string;
  size: number;
  /** Seconds since the epoch (since feature level 472). */
  create_time: number;
  /** The messages that link to it (since feature level 472). */
  message_ids: number[];
}

/** A data export of the organization, as GET /export/realm and the realm_export events give it. */
export interface RealmExport {
  id: number;
  acting_user_id: number;
  export_time: number;
  deleted_timestamp: number | null;
  failed_timestamp: number | null;
  export_url: string | null;
  pending: boolean;
  /** 'public', or 'full_with_consent' (with the private data of those who allow it). */
  export_type: string;
}

/** A channel folder of the organization, as /register and the channel_folder events give it (archived ones included). */
export interface ChannelFolder {
  id: number;
  name: string;
  description: string;
  order: number;
  is_archived: boolean;
}

export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

/** A submessage: a widget's data (msg_type "widget", JSON content), as messages and submessage events carry it. */
export interface Submessage {
  id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

export interface Message extends LocalMessage {
  sender_full_name: string;
  display_recipient: string | { id: number; email: string; full_name: string }[];
  content: string;
  /** The sender's avatar when the message was fetched (the user's own avatar_url is kept current). */
  avatar_url?: string | null;
  timestamp: number;
  last_edit_timestamp?: number;
  /** When it was last moved to another topic or channel. */
  last_moved_timestamp?: number;
  reactions: Reaction[];
  /** In ID order; a poll's or to-do list's state is rebuilt from them (`widgets.ts`). */
  submessages: Submessage[];
  /** In a search's results: the content with the search's words marked (`<span class="highlight">`), as fetched. */
  match_content?: string;
  /** A `/me` message (its content is one paragraph starting "/me "): shown as what the sender does. */
  is_me_message?: boolean;
}

interface UnreadInfo {
  kind: 'stream' | 'dm';
  streamId?: number;
  topic?: string;
  dmKey?: string;
  mentioned: boolean;
}

export interface Presence {
  active_timestamp?: number;
  idle_timestamp?: number;
}

export interface Status {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
  away?: boolean;
}

/** A custom emoji, as /register and realm_emoji events give it (deactivated ones included). */
export interface RealmEmoji {
  id: string;
  name: string;
  source_url: string;
  deactivated: boolean;
  author_id: number | null;
}

/** A linkifier, as /register and realm_linkifiers events give it (in the order the server applies them). */
export interface Linkifier {
  id: number;
  pattern: string;
  url_template: string;
}

/** A code playground, as /register and realm_playgrounds events give it: code blocks in `pygments_language` can be opened at the URL template (RFC 6570, `code` its one variable). */
export interface Playground {
  id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

/** A message the user scheduled and the server has not sent yet, as /register and the scheduled_messages events give it. */
export interface ScheduledMessage {
  scheduled_message_id: number;
  /** 'stream', or 'private' for a direct message. */
  type: string;
  /** The channel's ID, or the recipients' IDs. */
  to: number | number[];
  topic?: string;
  content: string;
  /** Its content as the server rendered it. */
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  /** The server tried to send it and could not. */
  failed: boolean;
}

/** A reminder of the user's about a message, not sent yet, as /register and the reminders events give it. */
export interface Reminder {
  reminder_id: number;
  reminder_target_message_id: number;
  /** What the reminder will say (the note, and the message it is about). */
  content: string;
  /** The same, as the server rendered it. */
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
}

/** A saved snippet of the user's, as /register and the saved_snippets events give it. */
export interface SavedSnippet {
  id: number;
  title: string;
  content: string;
  date_created: number;
}

/** A left-sidebar view's saved configuration, as /register's navigation_views and the navigation_view events give it (built-in views have no name). */
export interface NavigationView {
  fragment: string;
  is_pinned: boolean;
  name: string | null;
}

/** A draft, as /register's drafts and the drafts events give it ('stream' or 'private'; '' for one without an address). */
export interface Draft {
  id: number;
  type: string;
  /** The channel's ID, or the recipients' IDs. */
  to: number[];
  topic: string;
  content: string;
  /** When it was last changed (seconds). */
  timestamp: number;
}

/** A group setting's value: a group's ID, or an anonymous group of users and groups. */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/** A user group, as realm_user_groups and the user_group events give it. */
export interface UserGroup {
  id: number;
  name: string;
  description: string;
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
  deactivated: boolean;
  can_add_members_group?: GroupSettingValue;
  can_join_group?: GroupSettingValue;
  can_leave_group?: GroupSettingValue;
  can_manage_group?: GroupSettingValue;
  can_mention_group?: GroupSettingValue;
  can_remove_members_group?: GroupSettingValue;
}

/** A message as the Recent conversations view needs it: its conversation, sender and time. */
export interface RecentMessage {
  id: number;
  type: 'stream' | 'private';
  streamId?: number;
  topic: string;
  /** The direct-message conversation's key (`Model.dmKey`); '' for a channel message. */
  dmKey: string;
  senderId: number;
  timestamp: number;
}

/** How many of the newest messages the Recent conversations view starts from (as Zulip's web app fetches for it). */
const RECENT_FETCH = 400;

export interface TopicInfo {
  name: string;
  max_id: number;
}

export type ConnState = 'connecting' | 'live' | 'reconnecting';

const PAGE = 100;
/** The flags of a message that mentions the user (Zulip's `mentioned`: by name, or the channel's or the topic's everyone). */
const MENTION_FLAGS = new Set(['mentioned', 'wildcard_mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned']);
const OFFLINE_THRESHOLD_SECS = 140;

/** Zulip's compose box's words when a direct message may not be sent (Model.directMessageRefusal). */
export const DM_REFUSALS = {
  disabled: 'Direct messages are disabled in this organization.',
  noAuthorizer: 'This conversation does not include any users who can authorize it.',
  mayNotStart: 'You are not allowed to start direct message conversations.',
} as const;

type Listener = () => void;

/** A narrow's loaded messages, in id order. */
let listCounter = 0;

export interface ListPlace {
  startId: number;
  endId: number | null;
  top: { id: number; offset: number } | null;
  selected: number | null;
  /** A message's edit in progress, with its text (Zulip's kept combined feed keeps it too). */
  editing: { id: number; text: string } | null;
}

export class MessageList {
  readonly terms: Term[];
  /** The message to open the list at (a link's `near`), or null for the first unread one (else the newest). */
  readonly near: number | null;
  /**
   * Opened by a link's `near` term: as in Zulip's web app, such a view marks
   * nothing read (a `with` link's, which follows the conversation, does).
   */
  readonly nearLink: boolean;
  /** The first unread message of the narrow, which the list opened at (as Zulip opens a narrow); null when there was none. */
  firstUnread: number | null = null;
  /** Counts the times the view should go to the newest messages (one's own message sent into the narrow). */
  newestWanted = 0;
  /** Distinguishes lists (the view starts afresh for each). */
  readonly key = ++listCounter;
  /** Where the view of a list kept between visits (Model.keepsPlace) was when last shown: the rows' window, the top row in view and its offset, the selected message, an edit in progress. */
  place: ListPlace | null = null;
  messages: Message[] = [];
  foundOldest = false;
  foundNewest = false;
  loadingOlder = false;
  loadingNewer = false;
  loading = true;
  error: string | null = null;
  /** Bumped whenever the list changes, so views can react. */
  version = 0;
  private model: Model;
  private refreshQueued = false;
  /** Messages that arrived while the first page was being fetched. */
  private pending: Message[] = [];
  /** The oldest message ID the list has held: where its loaded stretch begins (even once that message has left it). */
  private loadedFrom: number | null = null;

  constructor(model: Model, terms: Term[], near: number | null = null, nearLink = false) {
    this.model = model;
    this.terms = terms;
    this.near = near;
    this.nearLink = near !== null && nearLink;
  }

  /**
   * Marks the message `id` and every later one of this narrow unread, as
   * Zulip's "Mark as unread from here" does (POST /messages/flags/narrow,
   * 5,000 at a time); the events update the counts.
   */
  async markUnreadFrom(id: number): Promise<void> {
    let anchor = id;
    let includeAnchor = true;
    for (;;) {
      const r = await api('POST', '/messages/flags/narrow', {
        anchor: String(anchor),
        include_anchor: includeAnchor,
        num_before: 0,
        num_after: 5000,
        narrow: this.apiNarrow(),
        op: 'remove',
        flag: 'read',
      });
      if (r.found_newest || !r.processed_count || r.last_processed_id === null) return;
      anchor = r.last_processed_id;
      includeAnchor = false;
    }
  }

  /** Marks every message of this narrow read (POST /messages/flags/narrow, a thousand at a time); the events update the counts. */
  async markAllRead(): Promise<void> {
    let anchor = 'oldest';
    for (;;) {
      const r = await api('POST', '/messages/flags/narrow', {
        anchor,
        include_anchor: anchor === 'oldest',
        num_before: 0,
        num_after: 1000,
        narrow: this.apiNarrow(),
        op: 'add',
        flag: 'read',
      });
      if (r.found_newest || !r.processed_count || r.last_processed_id === null) return;
      anchor = String(r.last_processed_id);
    }
  }

  /** The narrow as the API takes it: "All messages" is Zulip's combined feed, muted channels and topics left out. */
  private apiNarrow(): Array<Term | { operator: string; operand: string }> {
    return this.model.apiTerms(this.terms.length ? this.terms : [{ operator: 'in', operand: 'home' }]);
  }

  private async fetch(anchor: string | number, before: number, after: number): Promise<{ messages: Message[]; found_oldest: boolean; found_newest: boolean; anchor: number }> {
    const r = await api('GET', '/messages', {
      anchor: String(anchor),
      num_before: before,
      num_after: after,
      include_anchor: typeof anchor !== 'number',
      narrow: this.apiNarrow(),
      apply_markdown: true,
      client_gravatar: false,
    });
    return r as any;
  }

  /** The ID of the narrow's oldest message, if it has one. */
  async oldestId(): Promise<number | null> {
    return (await this.fetch('oldest', 0, 1)).messages[0]?.id ?? null;
  }

  async loadInitial(): Promise<void> {
    this.loading = true;
    this.error = null;
    try {
      // Around a linked message: half a page each side (String: the anchor itself included). Else a page
      // each side of the first unread message (the newest page when none is unread, as the server answers),
      // or in views that do not open there (Starred messages, a search) the newest page.
      const atFirstUnread = this.near === null && opensAtFirstUnread(this.terms);
      const r =
        this.near !== null ? await this.fetch(String(this.near), PAGE / 2, PAGE / 2) : atFirstUnread ? await this.fetch('first_unread', PAGE, PAGE) : await this.fetch('newest', PAGE, 0);
      this.merge(r.messages, true);
      this.foundOldest = r.found_oldest;
      this.foundNewest = r.found_newest;
      if (atFirstUnread) {
        const first = r.messages.find((m) => m.id === r.anchor);
        this.firstUnread = first && !first.flags.includes('read') ? first.id : null;
      }
      this.takePending();
    } catch (err) {
      this.error = (err as Error).message;
    } finally {
      this.loading = false;
      this.touch();
    }
  }

  /**
   * After a reconnect: fetch the newest page again and reconcile — messages
   * that changed while away are updated, deleted ones dropped, new ones added.
   */
  async refresh(): Promise<void> {
    const r = await this.fetch('newest', PAGE, 0);
    const fresh = r.messages;
    if (!fresh.length) {
      this.messages = [];
      this.foundOldest = true;
    } else if (!this.messages.length || fresh[0]!.id > this.messages[this.messages.length - 1]!.id) {
      // A gap we cannot see across: start over from the fresh page.
      this.messages = fresh.map((m) => this.model.normalize(m));
      this.foundOldest = r.found_oldest;
    } else {
      const lo = fresh[0]!.id;
      const keep = this.messages.filter((m) => m.id < lo);
      this.messages = [...keep, ...fresh.map((m) => this.model.normalize(m))];
      if (r.found_oldest) this.foundOldest = true;
    }
    this.foundNewest = true;
    this.loading = false;
    this.touch();
  }

  /** Messages that came while the list was loading: those it now reaches. */
  private takePending(): void {
    const pending = this.pending;
    this.pending = [];
    for (const m of pending) this.onNewMessage(m);
  }

  /** The next page after the newest loaded message (a list opened at a linked message). */
  async loadNewer(): Promise<number> {
    if (this.loadingNewer || this.foundNewest || !this.messages.length) return 0;
    this.loadingNewer = true;
    const r = await this.fetchMore(this.messages[this.messages.length - 1]!.id, 0, PAGE);
    this.loadingNewer = false;
    if (r) this.foundNewest = r.found_newest;
    const added = r ? this.merge(r.messages, false) : 0;
    this.takePending();
    this.touch();
    return added;
  }

  async loadOlder(): Promise<number> {
    if (this.loadingOlder || this.foundOldest || !this.messages.length) return 0;
    this.loadingOlder = true;
    this.touch();
    const r = await this.fetchMore(this.messages[0]!.id, PAGE, 0);
    this.loadingOlder = false;
    if (r) this.foundOldest = r.found_oldest;
    const added = r ? this.merge(r.messages, false) : 0;
    this.touch();
    return added;
  }

  /** A page beside those loaded, or null when it could not be had (the error shown unless the network failed). */
  private async fetchMore(anchor: number, before: number, after: number): Promise<Awaited<ReturnType<MessageList['fetch']>> | null> {
    try {
      return await this.fetch(anchor, before, after);
    } catch (err) {
      if (!(err instanceof NetworkError)) this.error = (err as Error).message;
      return null;
    }
  }

  /** Adds messages (deduplicated); returns how many were new. */
  merge(msgs: Message[], replace: boolean): number {
    const byId = new Map(this.messages.map((m) => [m.id, m]));
    let added = 0;
    for (const raw of msgs) {
      const m = this.model.normalize(raw);
      if (this.loadedFrom === null || m.id < this.loadedFrom) this.loadedFrom = m.id;
      if (!byId.has(m.id)) added++;
      byId.set(m.id, m);
    }
    if (replace && !this.messages.length) added = msgs.length;
    this.messages = [...byId.values()].sort((a, b) => a.id - b.id);
    return added;
  }

  onNewMessage(m: Message): void {
    const mine = m.sender_id === this.model.me.user_id;
    if (!this.foundNewest) {
      if (this.loading || this.loadingNewer) this.pending.push(m);
      // One's own message sent into this narrow, which is not loaded to its newest: the newest page, and the view goes there to show it.
      else if (mine && matches(this.terms, m, this.model.matchContext()) === true) {
        this.refresh().then(
          () => {
            this.newestWanted++;
            this.touch();
          },
          () => {},
        );
      }
      return;
    }
    const r = matches(this.terms, m, this.model.matchContext());
    if (!this.terms.length && this.model.isMuted(m)) return;
    if (r === true) {
      if (!this.messages.some((x) => x.id === m.id)) {
        this.messages.push(m);
        // One's own message: the view goes to it, even when scrolled up.
        if (mine) this.newestWanted++;
        if (this.messages.length > 1 && this.messages[this.messages.length - 2]!.id > m.id) this.messages.sort((a, b) => a.id - b.id);
        this.touch();
      }
    } else if (r === null) {
      this.queueRefresh();
    }
  }

  /** For narrows only the server can evaluate (free text, has:): ask again. */
  queueRefresh(): void {
    if (this.refreshQueued) return;
    this.refreshQueued = true;
    setTimeout(() => {
      this.refreshQueued = false;
      this.fetch('newest', 20, 0)
        .then((r) => {
          if (this.merge(r.messages, false)) this.touch();
        })
        .catch(() => {});
    }, 150);
  }

  /**
   * A message that may have come into this narrow or left it in a way only
   * the server can judge (a reaction, under has:reaction): asked again, and
   * added (within the loaded stretch) or taken out.
   */
  recheck(id: number): void {
    this.fetch(String(id), 0, 0)
      .then((r) => {
        const found = r.messages.filter((m) => m.id === id);
        const within = this.foundOldest || (this.messages.length > 0 && id > this.messages[0]!.id);
        if (!found.length) this.remove(new Set([id]));
        else if (within && (this.foundNewest || id < this.messages.at(-1)!.id) && this.merge(found, false)) this.touch();
      })
      .catch(() => {});
  }

  /**
   * All messages after a channel or a topic was unmuted, as Zulip's combined
   * feed: its loaded stretch fetched again, with what the server's `in:home`
   * had left out while it was muted (the view leaves out what is muted now
   * itself: Model.shownIn).
   */
  async refetchAfterUnmuting(): Promise<void> {
    if (this.loading || (this.loadedFrom === null && !this.foundOldest)) return;
    try {
      const r = await this.fetch(this.foundOldest ? 'oldest' : String(this.loadedFrom), 0, Math.min(5000, this.messages.length + 1000));
      if (this.merge(r.messages, false)) this.touch();
    } catch {
      // Left as it is: the next visit fetches it anew.
    }
  }

  remove(ids: Set<number>): void {
    const before = this.messages.length;
    this.messages = this.messages.filter((m) => !ids.has(m.id));
    if (this.messages.length !== before) this.touch();
  }

  touch(): void {
    this.version++;
    this.model.changed();
  }
}

/**
 * The newest messages of every conversation (`streamId` null) or of one
 * channel, by ID, for the Recent conversations view and a channel's list of
 * topics: fetched when the view first opens (`messages` null until then),
 * older ones on asking, kept current by the model's events.
 */
export class RecentData {
  messages: Map<number, RecentMessage> | null = null;
  /** Why fetching failed, if it did. */
  error: string | null = null;
  /** Whether the oldest message is here (nothing older to load). */
  foundOldest = false;
  /** Whether older messages are being fetched ("Load more conversations"). */
  loadingOlder = false;
  constructor(
    private readonly model: Model,
    readonly streamId: number | null,
  ) {}

  /** Whether a message belongs here. */
  holds(m: { type: string; stream_id?: number }): boolean {
    return this.streamId === null || (m.type === 'stream' && m.stream_id === this.streamId);
  }

  private fetch(anchor: number | 'newest') {
    const narrow = this.model.apiTerms(this.streamId === null ? [] : [{ operator: 'channel', operand: this.streamId }]);
    return api('GET', '/messages', { anchor, include_anchor: anchor === 'newest', num_before: RECENT_FETCH, num_after: 0, narrow, apply_markdown: false, client_gravatar: false });
  }

  /** Fetches the newest messages (again after a reconnect). */
  async load(): Promise<void> {
    try {
      const r = await this.fetch('newest');
      const fetched = new Map<number, RecentMessage>();
      let newest = 0;
      for (const m of r.messages as any[]) {
        const msg = this.model.normalize(m);
        fetched.set(msg.id, this.model.recentOf(msg));
        newest = Math.max(newest, msg.id);
      }
      // Messages that came by event while this was asked for are kept; older ones are as the server says now.
      for (const m of this.messages?.values() ?? []) if (m.id > newest) fetched.set(m.id, m);
      this.messages = fetched;
      this.foundOldest = r.found_oldest === true;
      this.error = null;
    } catch (err) {
      this.error = failureText(err);
    }
    this.model.changed();
  }

  /** Fetches the messages before the oldest one here, for older conversations ("Load more conversations"). */
  async loadOlder(): Promise<void> {
    const have = this.messages;
    if (!have || this.foundOldest || this.loadingOlder) return;
    let oldest = Infinity;
    for (const id of have.keys()) oldest = Math.min(oldest, id);
    if (oldest === Infinity) return;
    this.loadingOlder = true;
    this.model.changed();
    try {
      const r = await this.fetch(oldest);
      // A reconnect's fetch may have replaced the map meanwhile: older messages go into whatever is here now.
      for (const m of r.messages as any[]) {
        const msg = this.model.normalize(m);
        if (!this.messages?.has(msg.id)) this.messages?.set(msg.id, this.model.recentOf(msg));
      }
      if (this.messages === have) this.foundOldest = r.found_oldest === true;
      this.error = null;
    } catch (err) {
      this.error = failureText(err);
    } finally {
      this.loadingOlder = false;
      this.model.changed();
    }
  }
}

export class Model {
  me!: User;
  realm: Record<string, any> = {};
  settings: Record<string, any> = {};
  /** The settings new users start with (realm_user_settings_defaults; administrators change them). */
  userDefaults: Record<string, any> = {};
  users = new Map<number, User>();
  /**
   * The bots the user may manage (realm_bots: one's own, or every bot for
   * administrators), by ID: since feature level 474 a realm_bots entry
   * carries only the bot's settings; its name, address and state are in
   * its user object.
   */
  botIds = new Set<number>();
  /** The settings of the bots in botIds (an outgoing webhook's endpoint, the default channels), by bot ID, kept current by the realm_bot events. */
  botSettings = new Map<number, BotSettings>();
  /** The organization's user groups (system groups too: settings name them), deactivated ones included. */
  groups = new Map<number, UserGroup>();
  subs = new Map<number, Sub>();
  streams = new Map<number, Stream>();
  /** The default channels new users join (realm_default_streams, default_streams events). */
  defaultStreams = new Set<number>();
  /**
   * Channels' subscribers, for the channels whose list was asked for
   * (`loadSubscribers`), kept current by peer_add and peer_remove.
   */
  subscribers = new Map<number, Set<number>>();
  /** Peer events that came while a channel's subscribers were being fetched: replayed on the answer. */
  private subscriberEvents = new Map<number, Array<{ add: boolean; userIds: number[] }>>();
  /** The fetches of channels' subscribers under way, so a second caller waits for the same answer. */
  private subscriberLoads = new Map<number, Promise<void>>();
  unread = new Map<number, UnreadInfo>();
  /** key "1,5,9" (sorted ids, without me unless a self-DM) → newest message id */
  recentDms = new Map<string, number>();
  /** The topic fetches under way, by channel (loadTopics). */
  private topicFetches = new Map<number, Promise<void>>();
  presence = new Map<number, Presence>();
  statuses = new Map<number, Status>();
  realmEmoji = new Map<string, RealmEmoji>();
  linkifiers: Linkifier[] = [];
  /** The email domains the organization may restrict joining to (realm_domains, kept by its events). */
  realmDomains: Array<{ domain: string; allow_subdomains: boolean }> = [];
  /** The organization's custom profile fields, in their order. */
  profileFields: ProfileField[] = [];
  playgrounds: Playground[] = [];
  /** The user's scheduled messages not sent yet, by ID. */
  scheduledMessages = new Map<number, ScheduledMessage>();
  /** The files the user uploaded (GET /attachments), by ID, once fetched; the attachment events keep them. */
  attachments: Map<number, Attachment> | null = null;
  /** The organization's data exports (administrators), once fetched; the realm_export events replace them. */
  realmExports: RealmExport[] | null = null;
  /** Counts the invites_changed events: the invitations shown are fetched again when it moves. */
  invitesVersion = 0;
  /** The organization's channel folders, by ID. */
  channelFolders = new Map<number, ChannelFolder>();
  /** The user's reminders not sent yet, by ID. */
  reminders = new Map<number, Reminder>();
  /** The user's saved snippets, by ID. */
  savedSnippets = new Map<number, SavedSnippet>();
  /** The user's saved navigation views by fragment: built-in views unpinned (or pinned) and views of their own. */
  navigationViews = new Map<string, NavigationView>();
  /** The user's drafts at the server, by ID (while enable_drafts_synchronization is on). */
  drafts = new Map<number, Draft>();
  /** The users this user muted: user ID -> when (Unix seconds), from muted_users and its events. */
  mutedUsers = new Map<number, number>();
  /** The user's alert words, as the server keeps them (alert_words and its events). */
  alertWords: string[] = [];
  /** The IDs of the user's starred messages (/register's starred_messages, kept by the flag and deletion events). */
  starred = new Set<number>();
  /**
   * The topics with a visibility policy of the user's (Zulip's user_topics), by
   * "<channel ID>:<topic in lower case>": the name as written, the policy (1
   * muted, 2 unmuted, which matters in muted channels, 3 followed) and since
   * when (Unix seconds), for Settings' list.
   */
  userTopics = new Map<string, { streamId: number; topic: string; policy: number; since: number }>();
  /** Called with each new message from the server (not with the ones fetched): desktop notifications. */
  onIncoming: ((m: Message) => void) | null = null;
  /** conversation key → user id → expiry (ms) */
  typing = new Map<string, Map<number, number>>();
  topics = new Map<number, TopicInfo[]>();
  serverTimeOffset = 0;
  /** The newest presence change this client has (presence_last_update_id): pings ask only for what changed after it. */
  presenceLastUpdateId = -1;
  conn: ConnState = 'connecting';
  connError: string | null = null;
  list: MessageList | null = null;
  /**
   * All messages while it is the user's home view: kept between visits, and
   * kept current by the events while another view is shown, so that coming
   * back shows it where it was (its `place`), as Zulip's web app keeps its
   * combined feed only when that is the home view.
   */
  private keptFeed: MessageList | null = null;
  /** The newest messages of every conversation, for the Recent conversations view. */
  recent: RecentData = new RecentData(this, null);
  /** The newest messages of the channel whose list of topics was last opened (#topics/channel/<id>), if one was. */
  channelRecent: RecentData | null = null;
  /** Cache of every message we hold, by id (for events that carry only ids). */
  private listeners = new Set<Listener>();
  private scheduled = false;
  ready = false;
  /**
   * A logged-out visitor (Zulip's spectator): /register gave it no event
   * queue. It reads the web-public channels, asks the server within them
   * (apiTerms), and may change nothing.
   */
  spectator = false;

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      for (const fn of this.listeners) fn();
    });
  }

  /**
   * Sets properties of a channel as the server now has them: an update
   * event's, or those a request the server accepted changed (so that what
   * is shown, and what a next change is compared with, does not wait for
   * the event). The subscription's copy gets those it has.
   */
  updateChannel(id: number, props: Record<string, unknown>): void {
    const sub = this.subs.get(id);
    if (sub) for (const [k, v] of Object.entries(props)) if (k in sub) (sub as any)[k] = v;
    const st = this.streams.get(id);
    if (st) Object.assign(st, props);
  }

  /**
   * Shows `value` at `target[key]` at once while `send` asks the server for
   * it (whose event then confirms it); a refusal puts back what was there,
   * unless an event has changed it meanwhile, and is thrown on.
   */
  async tentatively<T extends object, K extends keyof T>(target: T, key: K, value: T[K], send: () => Promise<unknown>): Promise<void> {
    const before = target[key];
    target[key] = value;
    this.changed();
    try {
      await send();
    } catch (err) {
      if (target[key] === value) {
        target[key] = before;
        this.changed();
      }
      throw err;
    }
  }

  matchContext(): MatchContext {
    return {
      myId: this.me.user_id,
      streamIdByName: (name) => {
        for (const s of this.streams.values()) if (s.name.toLowerCase() === name.toLowerCase()) return s.stream_id;
        return undefined;
      },
      userIdByEmail: (email) => {
        for (const u of this.users.values()) if (u.email.toLowerCase() === email.toLowerCase()) return u.user_id;
        return undefined;
      },
    };
  }

  normalize(m: any): Message {
    return {
      ...m,
      reactions: m.reactions ?? [],
      submessages: m.submessages ?? [],
      flags: m.flags ?? [],
      subject: m.subject ?? m.topic ?? '',
    };
  }

  // ------------------------------------------------------------------ register

  loadRegister(r: Record<string, any>): void {
    this.realm = r;
    this.spectator = r.queue_id === null;
    this.settings = r.user_settings ?? {};
    this.userDefaults = r.realm_user_settings_defaults ?? {};
    this.users.clear();
    for (const u of r.realm_users ?? []) this.users.set(u.user_id, u);
    for (const u of r.realm_non_active_users ?? []) this.users.set(u.user_id, u);
    for (const u of r.cross_realm_bots ?? []) this.users.set(u.user_id, u);
    this.botIds = new Set((r.realm_bots ?? []).map((b: { user_id: number }) => b.user_id));
    this.botSettings = new Map((r.realm_bots ?? []).map((b: BotSettings) => [b.user_id, b]));
    this.groups.clear();
    for (const g of r.realm_user_groups ?? []) this.groups.set(g.id, this.toGroup(g));
    const me = this.users.get(r.user_id);
    this.me = me ?? { user_id: r.user_id, email: r.email, full_name: r.full_name, is_bot: false, is_active: true, role: r.role };
    this.subs.clear();
    for (const s of r.subscriptions ?? []) this.subs.set(s.stream_id, this.toSub(s));
    this.streams.clear();
    for (const s of r.streams ?? []) this.streams.set(s.stream_id, s);
    for (const s of r.subscriptions ?? []) this.streams.set(s.stream_id, s);
    this.defaultStreams = new Set(this.defaultStreamIds(r.realm_default_streams ?? []));
    // Fetched again when next asked for: events may have been missed.
    this.subscribers.clear();
    this.loadUnread(r.unread_msgs ?? {});
    this.recentDms.clear();
    for (const c of r.recent_private_conversations ?? []) this.recentDms.set(this.dmKey(c.user_ids), c.max_message_id);
    this.presence.clear();
    this.loadPresences(r.presences ?? {});
    this.presenceLastUpdateId = typeof r.presence_last_update_id === 'number' ? r.presence_last_update_id : -1;
    if (typeof r.server_timestamp === 'number') this.serverTimeOffset = r.server_timestamp - Date.now() / 1000;
    this.statuses.clear();
    for (const [id, st] of Object.entries(r.user_status ?? {})) this.statuses.set(Number(id), st as Status);
    this.realmEmoji.clear();
    for (const [id, e] of Object.entries(r.realm_emoji ?? {})) this.realmEmoji.set(id, e as any);
    this.linkifiers = r.realm_linkifiers ?? [];
    this.realmDomains = r.realm_domains ?? [];
    this.profileFields = byOrder(r.custom_profile_fields ?? []);
    this.playgrounds = r.realm_playgrounds ?? [];
    this.scheduledMessages.clear();
    for (const m of r.scheduled_messages ?? []) this.scheduledMessages.set(m.scheduled_message_id, m);
    this.channelFolders.clear();
    for (const f of r.channel_folders ?? []) this.channelFolders.set(f.id, f);
    this.reminders.clear();
    for (const r2 of r.reminders ?? []) this.reminders.set(r2.reminder_id, r2);
    this.savedSnippets.clear();
    for (const s of r.saved_snippets ?? []) this.savedSnippets.set(s.id, s);
    this.navigationViews.clear();
    for (const v of r.navigation_views ?? []) this.navigationViews.set(v.fragment, v);
    this.drafts.clear();
    for (const d of r.drafts ?? []) this.drafts.set(d.id, d);
    this.userTopics.clear();
    for (const t of r.user_topics ?? []) this.noteTopicPolicy(t);
    this.loadMutedUsers(r.muted_users ?? []);
    this.alertWords = r.alert_words ?? [];
    this.starred = new Set(r.starred_messages ?? []);
    this.topics.clear();
    this.ready = true;
    this.changed();
  }

  private toSub(s: any): Sub {
    return {
      stream_id: s.stream_id,
      name: s.name,
      color: s.color ?? '#76ce90',
      pin_to_top: !!s.pin_to_top,
      is_muted: !!(s.is_muted ?? s.in_home_view === false),
      description: s.description ?? '',
      rendered_description: s.rendered_description ?? '',
      invite_only: !!s.invite_only,
      desktop_notifications: typeof s.desktop_notifications === 'boolean' ? s.desktop_notifications : null,
      audible_notifications: typeof s.audible_notifications === 'boolean' ? s.audible_notifications : null,
      push_notifications: typeof s.push_notifications === 'boolean' ? s.push_notifications : null,
      email_notifications: typeof s.email_notifications === 'boolean' ? s.email_notifications : null,
      wildcard_mentions_notify: typeof s.wildcard_mentions_notify === 'boolean' ? s.wildcard_mentions_notify : null,
      is_recently_active: s.is_recently_active !== false,
      is_archived: !!s.is_archived,
    };
  }

  private toGroup(g: any): UserGroup {
    return { ...g, description: g.description ?? '', members: g.members ?? [], direct_subgroup_ids: g.direct_subgroup_ids ?? [], is_system_group: !!g.is_system_group, deactivated: !!g.deactivated };
  }

  private loadUnread(u: Record<string, any>): void {
    this.unread.clear();
    const mentions = new Set<number>(u.mentions ?? []);
    for (const s of u.streams ?? []) {
      for (const id of s.unread_message_ids) this.unread.set(id, { kind: 'stream', streamId: s.stream_id, topic: s.topic, mentioned: mentions.has(id) });
    }
    for (const p of u.pms ?? []) {
      const other = p.other_user_id ?? p.sender_id;
      for (const id of p.unread_message_ids) this.unread.set(id, { kind: 'dm', dmKey: this.dmKey([other]), mentioned: mentions.has(id) });
    }
    for (const h of u.huddles ?? []) {
      const ids = String(h.user_ids_string)
        .split(',')
        .map(Number)
        .filter((x) => x !== this.me?.user_id);
      for (const id of h.unread_message_ids) this.unread.set(id, { kind: 'dm', dmKey: this.dmKey(ids), mentioned: mentions.has(id) });
    }
  }

  loadPresences(p: Record<string, any>): void {
    for (const [key, v] of Object.entries(p)) {
      const id = /^\d+$/.test(key) ? Number(key) : this.matchContext().userIdByEmail(key);
      if (id === undefined) continue;
      if ('active_timestamp' in v || 'idle_timestamp' in v) {
        this.presence.set(id, { active_timestamp: v.active_timestamp, idle_timestamp: v.idle_timestamp });
      } else {
        this.applyLegacyPresence(id, v);
      }
    }
  }

  private applyLegacyPresence(id: number, clients: Record<string, any>): void {
    const cur = { ...(this.presence.get(id) ?? {}) };
    for (const c of Object.values(clients)) {
      if (!c || typeof c !== 'object' || typeof c.timestamp !== 'number') continue;
      if (c.status === 'active') cur.active_timestamp = Math.max(cur.active_timestamp ?? 0, c.timestamp);
      cur.idle_timestamp = Math.max(cur.idle_timestamp ?? 0, c.timestamp);
    }
    this.presence.set(id, cur);
  }

  presenceOf(id: number): 'active' | 'idle' | 'offline' {
    const p = this.presence.get(id);
    if (!p) return 'offline';
    const now = Date.now() / 1000 + this.serverTimeOffset;
    if (p.active_timestamp && now - p.active_timestamp < OFFLINE_THRESHOLD_SECS) return 'active';
    if (p.idle_timestamp && now - p.idle_timestamp < OFFLINE_THRESHOLD_SECS) return 'idle';
    return 'offline';
  }

  // ------------------------------------------------------------------ helpers

  dmKey(userIds: number[]): string {
    const others = userIds.filter((id) => id !== this.me?.user_id);
    const ids = others.length ? others : [this.me?.user_id ?? 0];
    return [...new Set(ids)].sort((a, b) => a - b).join(',');
  }

  dmKeyOf(m: Message): string {
    return Array.isArray(m.display_recipient) ? this.dmKey(m.display_recipient.map((r) => r.id)) : '';
  }

  /** A message's conversation. */
  placeOf(m: Message): Place {
    return m.type === 'stream' ? { kind: 'stream', streamId: m.stream_id, topic: m.subject } : { kind: 'dm', dmKey: this.dmKeyOf(m) };
  }

  /**
   * The Markdown that mentions a user (`@_` for a silent mention), as Zulip
   * writes it: `@**Full Name**`, with `|id` after the name when another
   * active user has the same name.
   */
  mentionSyntax(id: number, name: string = this.users.get(id)?.full_name ?? '', silent = false): string {
    const twin = [...this.users.values()].some((u) => u.is_active && u.user_id !== id && u.full_name.toLowerCase() === name.toLowerCase());
    return `${silent ? '@_' : '@'}**${name}${twin ? `|${id}` : ''}**`;
  }

  /** A user's name as shown: with "(guest)" after a guest's (withGuestMark). */
  userName(id: number): string {
    return this.withGuestMark(id, this.users.get(id)?.full_name ?? `User ${id}`);
  }

  /** `name` (user `id`'s), with "(guest)" after it for a guest while the organization's realm_enable_guest_user_indicator is on (Zulip's default). */
  withGuestMark(id: number, name: string): string {
    return this.isGuest(id) && this.realm.realm_enable_guest_user_indicator !== false ? `${name} (guest)` : name;
  }

  /** Whether a user is a guest (role 600). */
  isGuest(id: number): boolean {
    return this.users.get(id)?.role === 600;
  }

  /**
   * Where a message goes, as the lists under the compose box (scheduled
   * messages, drafts) name it: "#channel > topic" for a channel (`streamId`),
   * else the other people's names (one's own for notes to self).
   */
  placeName(streamId: number | undefined, topic: string, userIds: number[]): string {
    if (streamId !== undefined) return `#${this.streamName(streamId)} \u203a ${topic}`;
    const ids = userIds.filter((id) => id !== this.me.user_id);
    return ids.length ? ids.map((id) => this.userName(id)).join(', ') : this.userName(this.me.user_id);
  }

  streamName(id: number | undefined): string {
    if (id === undefined) return '';
    return this.subs.get(id)?.name ?? this.streams.get(id)?.name ?? `channel ${id}`;
  }

  /** A user_topics entry (from /register or a user_topic event): muted (1), unmuted (2) or followed (3), else none of them; also listed for Settings (userTopics). */
  private noteTopicPolicy(t: { stream_id: number; topic_name: string; visibility_policy: number; last_updated?: number }): void {
    const key = `${t.stream_id}:${String(t.topic_name).toLowerCase()}`;
    this.userTopics.delete(key);
    if (t.visibility_policy >= 1 && t.visibility_policy <= 3) this.userTopics.set(key, { streamId: t.stream_id, topic: String(t.topic_name), policy: t.visibility_policy, since: t.last_updated ?? 0 });
  }

  /** muted_users from /register or its event: the whole list. */
  private loadMutedUsers(list: Array<{ id: number; timestamp: number }>): void {
    this.mutedUsers = new Map(list.map((u) => [u.id, u.timestamp]));
  }

  /** Whether this user muted `userId`: their messages show collapsed, and they are left out of suggestions, typing and notifications. */
  isUserMuted(userId: number): boolean {
    return this.mutedUsers.has(userId);
  }

  /** A direct-message conversation (its key) with muted users only (the sidebar leaves it out). */
  onlyMutedIn(dmKey: string): boolean {
    return dmKey.split(',').every((id) => this.isUserMuted(Number(id)));
  }

  isTopicFollowed(streamId: number, topic: string): boolean {
    return this.topicPolicy(streamId, topic) === 3;
  }

  /** The user's visibility_policy for a topic: 1 muted, 2 unmuted, 3 followed, else 0. */
  topicPolicy(streamId: number, topic: string): number {
    return this.userTopics.get(`${streamId}:${topic.toLowerCase()}`)?.policy ?? 0;
  }

  /**
   * The topic's mute action as Zulip's web app offers it: in a channel not
   * muted, muting (policy 1) and back (0); in a muted channel, where its topics
   * are muted unless unmuted or followed there, unmuting (2) and back (0).
   * `muted` says whether the topic is muted now.
   */
  topicMuteAction(streamId: number, topic: string): { muted: boolean; label: string; visibility: number } {
    const muted = this.isMuted({ type: 'stream', stream_id: streamId, subject: topic });
    if (this.subs.get(streamId)?.is_muted) return muted ? { muted, label: 'Unmute topic', visibility: 2 } : { muted, label: 'Mute topic', visibility: 0 };
    return muted ? { muted, label: 'Unmute topic', visibility: 0 } : { muted, label: 'Mute topic', visibility: 1 };
  }

  /**
   * In a muted topic, or a muted channel's topic that is not unmuted or
   * followed there (left out of the combined feed and its count, as the
   * server's in:home and Zulip's feed leave them out).
   */
  isMuted(m: { type: string; stream_id?: number; subject: string }): boolean {
    if (m.type !== 'stream' || m.stream_id === undefined) return false;
    return this.isTopicMuted(m.stream_id, m.subject) || (!!this.subs.get(m.stream_id)?.is_muted && !this.isTopicUnmutedOrFollowed(m.stream_id, m.subject));
  }

  /** Whether a topic is unmuted (visibility_policy 2) or followed (3): not muted in a muted channel. */
  isTopicUnmutedOrFollowed(streamId: number, topic: string): boolean {
    const policy = this.topicPolicy(streamId, topic);
    return policy === 2 || policy === 3;
  }

  /** Whether an unread message counts in All messages: channels left (as the server leaves them out of unread_msgs), muted channels and topics do not. */
  inFeed(u: UnreadInfo): boolean {
    if (u.kind !== 'stream' || u.streamId === undefined) return true;
    const sub = this.subs.get(u.streamId);
    // (Not an archived channel's: it is out of the sidebar and the inbox, as when it was not known.)
    return !!sub && !sub.is_archived && !this.isMuted({ type: 'stream', stream_id: u.streamId, subject: u.topic ?? '' });
  }

  /** Whether an unread message is in the inbox: as in All messages, without conversations with muted users only. */
  inInbox(u: UnreadInfo): boolean {
    return u.kind === 'dm' ? !!u.dmKey && !this.onlyMutedIn(u.dmKey) : this.inFeed(u);
  }

  unreadInFeed(): number {
    let n = 0;
    for (const u of this.unread.values()) if (this.inFeed(u)) n++;
    return n;
  }

  /** The organization's folders not archived, in their order. */
  activeFolders(): ChannelFolder[] {
    return [...this.channelFolders.values()].filter((f) => !f.is_archived).sort((a, b) => a.order - b.order);
  }

  /** How many channels the user could join from the Channels dialog: public ones not archived that they are not in (none for guests). */
  channelsToBrowse(): number {
    if (this.spectator || this.isGuest(this.me.user_id)) return 0;
    let n = 0;
    for (const s of this.streams.values()) if (!this.subs.has(s.stream_id) && !s.invite_only && !s.is_archived) n++;
    return n;
  }

  /** The user's channels in the left sidebar's order: pinned first, then by name (not the archived ones, as Zulip's sidebar). */
  sidebarChannels(): Sub[] {
    return this.activeSubs().sort((a, b) => Number(b.pin_to_top) - Number(a.pin_to_top) || a.name.localeCompare(b.name));
  }

  /** The user's channels that are not archived (those one can write to or move messages to), by name. */
  activeSubs(): Sub[] {
    return [...this.subs.values()].filter((s) => !s.is_archived).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Whether a channel is archived (or unknown to the client). */
  isArchived(streamId: number): boolean {
    const c = this.subs.get(streamId) ?? this.streams.get(streamId);
    return !c || !!c.is_archived;
  }

  /**
   * Whether the sidebar demotes inactive channels (the user's
   * demote_inactive_streams, as Zulip's web app reads it: 1, its default,
   * once the user has 20 channels or more; 2 always; 3 never).
   */
  demotesInactive(): boolean {
    const policy = Number(this.settings.demote_inactive_streams ?? 1);
    return policy === 2 || (policy === 1 && this.subs.size >= 20);
  }

  /**
   * Channels grouped by their folders (in the folders' order), then "Other
   * channels", then the folders whose channels are all muted or demoted
   * (Zulip's order), each in its section order; null when no channel is in a
   * folder (a plain list then).
   */
  folderGroups(subs: Sub[]): Array<{ key: string; label: string; subs: Sub[] }> | null {
    const folderOf = (s: Sub) => this.streams.get(s.stream_id)?.folder_id ?? null;
    const demote = this.demotesInactive();
    const shown = (s: Sub) => !this.mutedOrDemoted(s, demote);
    const folders: Array<{ key: string; label: string; subs: Sub[] }> = [];
    const placed = new Set<number>();
    for (const f of this.activeFolders()) {
      const inIt = subs.filter((s) => folderOf(s) === f.id);
      if (!inIt.length) continue;
      folders.push({ key: `f${f.id}`, label: f.name, subs: this.sectionOrder(inIt, demote) });
      for (const s of inIt) placed.add(s.stream_id);
    }
    if (!folders.length) return null;
    const rest = subs.filter((s) => !placed.has(s.stream_id));
    const other = rest.length ? [{ key: 'other', label: 'Other channels', subs: this.sectionOrder(rest, demote) }] : [];
    return [...folders.filter((g) => g.subs.some(shown)), ...other, ...folders.filter((g) => !g.subs.some(shown))];
  }

  /**
   * `subs` in the sidebar's sections: the pinned ones and the others, each in
   * its section order, and (with `byFolder`) the others grouped by folder
   * (folderGroups; null without folders).
   */
  channelSections(subs: Sub[], byFolder: boolean): { pinned: Sub[]; others: Sub[]; folders: Array<{ key: string; label: string; subs: Sub[] }> | null } {
    const others = this.sectionOrder(subs.filter((s) => !s.pin_to_top));
    return { pinned: this.sectionOrder(subs.filter((s) => s.pin_to_top), false), others, folders: byFolder ? this.folderGroups(others) : null };
  }

  /** The user's channels in the order the left sidebar shows them: pinned ones, then by folder as the user's web_left_sidebar_show_channel_folders says, each section in its order. */
  sidebarOrder(): Sub[] {
    const { pinned, others, folders } = this.channelSections(this.sidebarChannels(), this.settings.web_left_sidebar_show_channel_folders !== false);
    return [...pinned, ...(folders ? folders.flatMap((g) => g.subs) : others)];
  }

  /** Whether a channel is muted, or (`demote`: as demotesInactive says) without recent messages: what Zulip's sidebar hides behind a section's toggle. */
  mutedOrDemoted(s: Sub, demote = this.demotesInactive()): boolean {
    return s.is_muted || (demote && !s.is_recently_active);
  }

  /** A channel's unread messages in topics unmuted or followed there (what counts in a muted channel). */
  unreadInHeardTopics(streamId: number): number {
    return this.unreadCount((u) => u.kind === 'stream' && u.streamId === streamId && this.isTopicUnmutedOrFollowed(streamId, u.topic ?? ''));
  }

  /**
   * Channels in a sidebar section's order as Zulip's: the active ones not
   * muted, then the muted ones, then (when `demote`, never for pinned ones)
   * the inactive ones, each by name.
   */
  sectionOrder(subs: Sub[], demote = this.demotesInactive()): Sub[] {
    const rank = (s: Sub) => (demote && !s.is_recently_active ? 2 : s.is_muted ? 1 : 0);
    return [...subs].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  }

  isTopicMuted(streamId: number, topic: string): boolean {
    return this.topicPolicy(streamId, topic) === 1;
  }

  /**
   * The list's messages its view shows, as Zulip's message lists filter
   * theirs: All messages leaves out muted channels and topics (isMuted);
   * the other views that exclude muted topics (excludesMutedTopics) leave
   * out a muted topic's messages but those that mention the user; every
   * view but the one-on-one conversation itself leaves out one-on-one
   * direct messages with a muted user (either way).
   */
  shownIn(list: MessageList): Message[] {
    const t = list.terms;
    const only = t.length === 1 && !t[0]!.negated ? t[0]! : null;
    const feed = !t.length || (only?.operator === 'in' && only.operand === 'home');
    const mutedTopics = feed || excludesMutedTopics(t);
    const oneOnOne = only?.operator === 'dm' && Array.isArray(only.operand) && only.operand.length === 1;
    const hidden = (m: Message): boolean => {
      if (m.type === 'private') {
        if (oneOnOne || !this.mutedUsers.size) return false;
        const key = this.dmKeyOf(m);
        return !key.includes(',') && (this.isUserMuted(Number(key)) || this.isUserMuted(m.sender_id));
      }
      if (!mutedTopics || m.stream_id === undefined) return false;
      if (feed) return this.isMuted(m);
      return this.isTopicMuted(m.stream_id, m.subject) && !m.flags.some((f) => MENTION_FLAGS.has(f));
    };
    return list.messages.some(hidden) ? list.messages.filter((m) => !hidden(m)) : list.messages;
  }

  unreadCount(filter: (u: UnreadInfo) => boolean): number {
    let n = 0;
    for (const u of this.unread.values()) if (filter(u)) n++;
    return n;
  }

  unreadByStream(): Map<number, number> {
    const out = new Map<number, number>();
    for (const u of this.unread.values()) {
      if (u.kind !== 'stream' || u.streamId === undefined) continue;
      if (this.isTopicMuted(u.streamId, u.topic ?? '')) continue;
      out.set(u.streamId, (out.get(u.streamId) ?? 0) + 1);
    }
    return out;
  }

  unreadByTopic(streamId: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const u of this.unread.values()) {
      if (u.kind !== 'stream' || u.streamId !== streamId) continue;
      const k = (u.topic ?? '').toLowerCase();
      out.set(k, (out.get(k) ?? 0) + 1);
    }
    return out;
  }

  unreadByDm(): Map<string, number> {
    const out = new Map<string, number>();
    for (const u of this.unread.values()) if (u.kind === 'dm' && u.dmKey) out.set(u.dmKey, (out.get(u.dmKey) ?? 0) + 1);
    return out;
  }

  typingIn(key: string): number[] {
    const m = this.typing.get(key);
    if (!m) return [];
    const now = Date.now();
    return [...m.entries()].filter(([id, exp]) => exp > now && !this.isUserMuted(id)).map(([id]) => id);
  }

  /**
   * Shows the narrow's messages: a new list, at the message `near` (a link's,
   * `nearLink` when by a `near` term) or else where the narrow opens.
   */
  openList(terms: Term[], near: number | null = null, nearLink = false): void {
    const homeFeed = this.settings.web_home_view === 'all_messages' && terms.length === 0 && near === null;
    if (this.settings.web_home_view !== 'all_messages') this.keptFeed = null;
    // All messages as the home view, kept (Zulip's keeps it once loaded to its newest message): shown as it was.
    const kept = this.keptFeed;
    if (homeFeed && kept && kept.foundNewest && !kept.loading && !kept.error) {
      this.list = kept;
      this.changed();
      return;
    }
    const list = new MessageList(this, terms, near, nearLink);
    if (homeFeed) this.keptFeed = list;
    this.list = list;
    this.changed();
    void list.loadInitial();
    const ch = terms.find((t) => t.operator === 'channel' && !t.negated);
    if (ch && typeof ch.operand === 'number') void this.loadTopics(ch.operand);
  }

  /** A channel's topics: fetched (again) from the server. */
  async loadTopics(streamId: number): Promise<void> {
    const fetching = (async () => {
      try {
        const r = await api('GET', `/users/me/${streamId}/topics`);
        this.topics.set(streamId, r.topics as TopicInfo[]);
        this.changed();
      } catch {
        // The sidebar simply shows no topics.
      }
    })();
    this.topicFetches.set(streamId, fetching);
    await fetching;
    if (this.topicFetches.get(streamId) === fetching) this.topicFetches.delete(streamId);
  }

  /** A channel's topics, fetched unless they are loaded already or on their way (then that fetch). */
  ensureTopics(streamId: number): Promise<void> {
    if (this.topics.has(streamId)) return Promise.resolve();
    return this.topicFetches.get(streamId) ?? this.loadTopics(streamId);
  }

  private noteTopic(streamId: number, topic: string, id: number): void {
    const list = this.topics.get(streamId);
    if (!list) return;
    const i = list.findIndex((t) => t.name.toLowerCase() === topic.toLowerCase());
    if (i >= 0) list.splice(i, 1);
    list.unshift({ name: topic, max_id: id });
  }

  /** The Recent conversations data of a channel (its list of topics), the one kept before if it was for that channel. */
  recentOfChannel(streamId: number): RecentData {
    if (this.channelRecent?.streamId !== streamId) this.channelRecent = new RecentData(this, streamId);
    return this.channelRecent;
  }

  /** The Recent conversations data kept current by events: every conversation's, and a channel's if one was opened. */
  recentScopes(): RecentData[] {
    return this.channelRecent ? [this.recent, this.channelRecent] : [this.recent];
  }

  recentOf(m: Message): RecentMessage {
    return { id: m.id, type: m.type, streamId: m.stream_id, topic: m.subject, dmKey: m.type === 'private' ? this.dmKeyOf(m) : '', senderId: m.sender_id, timestamp: m.timestamp };
  }

  /** Whether `list` is kept between visits, its view coming back where it was (All messages while it is the home view). */
  keepsPlace(list: MessageList): boolean {
    return list === this.keptFeed && this.settings.web_home_view === 'all_messages';
  }

  /** The lists the events keep current: the one in view, and All messages when kept (keptFeed). */
  private liveLists(): MessageList[] {
    const out: MessageList[] = [];
    if (this.list) out.push(this.list);
    if (this.keptFeed && this.keptFeed !== this.list) out.push(this.keptFeed);
    return out;
  }

  /** A channel or topic unmuted: All messages, in view or kept, fetches what it had left out (MessageList.refetchAfterUnmuting). */
  private feedUnmuted(): void {
    for (const list of this.liveLists()) if (!list.terms.length) void list.refetchAfterUnmuting();
  }

  /** A message as each live list holds it (each list has its own copy). */
  private copiesOf(id: number): Array<{ list: MessageList; m: Message }> {
    const out: Array<{ list: MessageList; m: Message }> = [];
    for (const list of this.liveLists()) {
      const m = list.messages.find((x) => x.id === id);
      if (m) out.push({ list, m });
    }
    return out;
  }

  /**
   * After the event queue was registered again: what happened meanwhile
   * fetched for the list in view; a kept All messages not in view is
   * dropped (opened anew when the user comes back to it).
   */
  async refreshAfterReconnect(): Promise<void> {
    if (this.keptFeed !== this.list) this.keptFeed = null;
    await this.list?.refresh();
  }

  // ------------------------------------------------------------------ events

  apply(ev: Record<string, any>): void {
    switch (ev.type) {
      case 'message':
        this.onMessage(this.normalize({ ...ev.message, flags: ev.flags ?? [] }));
        break;
      case 'update_message':
        this.onUpdateMessage(ev);
        break;
      case 'delete_message': {
        const ids = new Set<number>(ev.message_ids ?? (ev.message_id ? [ev.message_id] : []));
        for (const id of ids) {
          this.unread.delete(id);
          for (const r of this.recentScopes()) r.messages?.delete(id);
          this.starred.delete(id);
        }
        for (const list of this.liveLists()) list.remove(ids);
        if (ev.message_type === 'stream' && ev.stream_id !== undefined) this.loadTopics(ev.stream_id);
        break;
      }
      case 'reaction': {
        for (const { list, m } of this.copiesOf(ev.message_id)) {
          if (ev.op === 'add') {
            if (!m.reactions.some((r) => r.user_id === ev.user_id && r.emoji_code === ev.emoji_code && r.reaction_type === ev.reaction_type))
              m.reactions = [...m.reactions, { emoji_name: ev.emoji_name, emoji_code: ev.emoji_code, reaction_type: ev.reaction_type, user_id: ev.user_id }];
          } else {
            m.reactions = m.reactions.filter((r) => !(r.user_id === ev.user_id && r.emoji_code === ev.emoji_code && r.reaction_type === ev.reaction_type));
          }
          list.touch();
        }
        // The Reactions view (has:reaction): the message may have come in or gone.
        if (this.list?.terms.some((t) => t.operator === 'has' && t.operand === 'reaction' && !t.negated)) this.list.recheck(ev.message_id);
        break;
      }
      case 'submessage': {
        for (const { list, m } of this.copiesOf(ev.message_id)) {
          if (m.submessages.some((s) => s.id === ev.submessage_id)) continue;
          const s = { id: ev.submessage_id, sender_id: ev.sender_id, msg_type: ev.msg_type, content: ev.content };
          m.submessages = [...m.submessages, s].sort((a, b) => a.id - b.id);
          list.touch();
        }
        break;
      }
      case 'update_message_flags':
        this.onFlags(ev);
        break;
      case 'subscription':
        this.onSubscription(ev);
        break;
      case 'stream':
        if (ev.op === 'create') for (const s of ev.streams) this.streams.set(s.stream_id, s);
        else if (ev.op === 'delete') for (const s of ev.streams) {
          this.streams.delete(s.stream_id);
          this.subs.delete(s.stream_id);
        }
        // A privacy change carries the other privacy settings along.
        else if (ev.op === 'update') this.updateChannel(ev.stream_id, { [ev.property]: ev.value, ...pick(ev, ['history_public_to_subscribers', 'is_web_public', 'invite_only', 'rendered_description']) });
        break;
      case 'default_streams':
        this.defaultStreams = new Set(this.defaultStreamIds(ev.default_streams ?? []));
        break;
      case 'presence':
        if (ev.presences) this.loadPresences(ev.presences);
        else if (ev.presence) this.applyLegacyPresence(ev.user_id, ev.presence);
        break;
      case 'typing':
        this.onTyping(ev);
        break;
      case 'realm_user':
        if (ev.op === 'add') this.users.set(ev.person.user_id, ev.person);
        else if (ev.op === 'update') {
          const u = this.users.get(ev.person.user_id);
          // One custom profile field's value comes as custom_profile_field, not as a property of the user.
          const { custom_profile_field: field, ...rest } = ev.person;
          for (const target of new Set([u, ev.person.user_id === this.me.user_id ? this.me : undefined])) {
            if (!target) continue;
            Object.assign(target, rest);
            if (field) setProfileValue(target, field);
          }
          // A new name shows on the messages already here too (as in Zulip's web app).
          if (typeof rest.full_name === 'string') {
            for (const list of this.liveLists()) {
              for (const m of list.messages) if (m.sender_id === ev.person.user_id) m.sender_full_name = rest.full_name;
              list.touch();
            }
          }
        } else if (ev.op === 'remove') {
          const u = this.users.get(ev.person.user_id);
          if (u) u.is_active = false;
        }
        break;
      case 'user_status': {
        const cur = { ...(this.statuses.get(ev.user_id) ?? {}) };
        if ('status_text' in ev) cur.status_text = ev.status_text;
        if ('emoji_name' in ev) cur.emoji_name = ev.emoji_name;
        if ('emoji_code' in ev) cur.emoji_code = ev.emoji_code;
        if ('reaction_type' in ev) cur.reaction_type = ev.reaction_type;
        if ('away' in ev) cur.away = ev.away;
        this.statuses.set(ev.user_id, cur);
        break;
      }
      case 'realm_user_settings_defaults':
        if (ev.op === 'update') this.userDefaults[ev.property] = ev.value;
        break;
      case 'user_settings':
        if (ev.op === 'update') this.settings[ev.property] = ev.value;
        // Turning synchronization off deletes the server's drafts (without drafts events).
        if (ev.property === 'enable_drafts_synchronization') this.drafts.clear();
        break;
      case 'realm_bot':
        if (ev.op === 'add') {
          this.botIds.add(ev.bot.user_id);
          this.botSettings.set(ev.bot.user_id, ev.bot);
        } else if (ev.op === 'update') {
          // (An update names what changed.)
          const cur = this.botSettings.get(ev.bot.user_id);
          if (cur) this.botSettings.set(ev.bot.user_id, { ...cur, ...ev.bot });
        } else if (ev.op === 'delete' || ev.op === 'remove') {
          this.botIds.delete(ev.bot.user_id);
          this.botSettings.delete(ev.bot.user_id);
        }
        break;
      case 'user_group':
        this.onUserGroup(ev);
        break;
      case 'realm':
        if (ev.op === 'update') this.realm[`realm_${ev.property}`] = ev.value;
        else if (ev.op === 'update_dict' && ev.data) for (const [k, v] of Object.entries(ev.data)) this.realm[`realm_${k}`] = v;
        break;
      case 'realm_emoji':
        if (ev.op === 'update') {
          this.realmEmoji.clear();
          for (const [id, e] of Object.entries(ev.realm_emoji ?? {})) this.realmEmoji.set(id, e as any);
        }
        break;
      case 'realm_domains':
        if (ev.op === 'add') this.realmDomains = [...this.realmDomains.filter((d) => d.domain !== ev.realm_domain.domain), ev.realm_domain];
        else if (ev.op === 'change') this.realmDomains = this.realmDomains.map((d) => (d.domain === ev.realm_domain.domain ? ev.realm_domain : d));
        else if (ev.op === 'remove') this.realmDomains = this.realmDomains.filter((d) => d.domain !== ev.domain);
        break;
      case 'realm_linkifiers':
        this.linkifiers = ev.realm_linkifiers ?? [];
        break;
      case 'custom_profile_fields':
        this.profileFields = byOrder(ev.fields ?? []);
        break;
      case 'scheduled_messages':
        if (ev.op === 'add') for (const m of ev.scheduled_messages ?? []) this.scheduledMessages.set(m.scheduled_message_id, m);
        else if (ev.op === 'update') this.scheduledMessages.set(ev.scheduled_message.scheduled_message_id, { ...this.scheduledMessages.get(ev.scheduled_message.scheduled_message_id), ...ev.scheduled_message });
        else if (ev.op === 'remove') this.scheduledMessages.delete(ev.scheduled_message_id);
        break;
      case 'invites_changed':
        this.invitesVersion++;
        break;
      case 'attachment':
        if (!this.attachments) break;
        if (ev.op === 'remove') this.attachments.delete(ev.attachment.id);
        else this.attachments.set(ev.attachment.id, { ...this.attachments.get(ev.attachment.id), ...ev.attachment });
        break;
      case 'realm_export':
        this.realmExports = ev.exports;
        break;
      case 'channel_folder':
        if (ev.op === 'add') this.channelFolders.set(ev.channel_folder.id, ev.channel_folder);
        else if (ev.op === 'update') {
          const f = this.channelFolders.get(ev.channel_folder_id);
          if (f) Object.assign(f, ev.data);
        } else if (ev.op === 'reorder') {
          (ev.order as number[]).forEach((id, i) => {
            const f = this.channelFolders.get(id);
            if (f) f.order = i;
          });
        }
        break;
      case 'reminders':
        if (ev.op === 'add') for (const r of ev.reminders ?? []) this.reminders.set(r.reminder_id, r);
        else if (ev.op === 'remove') this.reminders.delete(ev.reminder_id);
        break;
      case 'navigation_view': {
        const cur = this.navigationViews.get(ev.fragment);
        if (ev.op === 'add') this.navigationViews.set(ev.navigation_view.fragment, ev.navigation_view);
        else if (ev.op === 'update' && cur) this.navigationViews.set(ev.fragment, { ...cur, ...ev.data });
        else if (ev.op === 'remove') this.navigationViews.delete(ev.fragment);
        break;
      }
      case 'saved_snippets':
        if (ev.op === 'add' || ev.op === 'update') this.savedSnippets.set(ev.saved_snippet.id, ev.saved_snippet);
        else if (ev.op === 'remove') this.savedSnippets.delete(ev.saved_snippet_id);
        break;
      case 'drafts':
        if (ev.op === 'add') for (const d of ev.drafts ?? []) this.drafts.set(d.id, d);
        else if (ev.op === 'update') this.drafts.set(ev.draft.id, ev.draft);
        else if (ev.op === 'remove') this.drafts.delete(ev.draft_id);
        break;
      case 'realm_playgrounds':
        this.playgrounds = ev.realm_playgrounds ?? [];
        break;
      case 'muted_users':
        this.loadMutedUsers(ev.muted_users ?? []);
        this.list?.touch();
        break;
      case 'alert_words':
        this.alertWords = ev.alert_words ?? [];
        this.list?.touch();
        break;
      case 'user_topic':
        this.noteTopicPolicy(ev as { stream_id: number; topic_name: string; visibility_policy: number; last_updated?: number });
        if (ev.visibility_policy !== 1) this.feedUnmuted();
        break;
      default:
        return;
    }
    this.changed();
  }

  private onMessage(m: Message): void {
    const mentioned = m.flags.some((f) => /mentioned/.test(f));
    if (!m.flags.includes('read')) {
      if (m.type === 'stream') this.unread.set(m.id, { kind: 'stream', streamId: m.stream_id, topic: m.subject, mentioned });
      else this.unread.set(m.id, { kind: 'dm', dmKey: this.dmKeyOf(m), mentioned });
    }
    if (m.type === 'private') this.recentDms.set(this.dmKeyOf(m), m.id);
    else if (m.stream_id !== undefined) {
      this.noteTopic(m.stream_id, m.subject, m.id);
      const sub = this.subs.get(m.stream_id);
      if (sub) sub.is_recently_active = true;
    }
    for (const r of this.recentScopes()) if (r.holds(m)) r.messages?.set(m.id, this.recentOf(m));
    // Someone who sends a message has stopped typing.
    for (const t of this.typing.values()) t.delete(m.sender_id);
    for (const list of this.liveLists()) list.onNewMessage(m);
    this.onIncoming?.(m);
  }

  private onUpdateMessage(ev: Record<string, any>): void {
    const ids: number[] = ev.message_ids ?? [ev.message_id];
    const newTopic: string | undefined = ev.subject ?? ev.topic;
    const newStream: number | undefined = ev.new_stream_id;
    for (const id of ids) {
      const u = this.unread.get(id);
      if (u && u.kind === 'stream') {
        if (newTopic !== undefined) u.topic = newTopic;
        if (newStream !== undefined) u.streamId = newStream;
      }
      for (const scope of this.recentScopes()) {
        const r = scope.messages?.get(id);
        if (!r || r.type !== 'stream') continue;
        if (newTopic !== undefined) r.topic = newTopic;
        if (newStream !== undefined) r.streamId = newStream;
      }
      for (const { m } of this.copiesOf(id)) {
        if (id === ev.message_id && ev.rendered_content !== undefined) {
          m.content = ev.rendered_content;
          if (ev.is_me_message !== undefined) m.is_me_message = ev.is_me_message;
          // The marks were for the text before the edit.
          delete m.match_content;
          // (Not an edit where the server only rendered it again, e.g. with its website previews.)
          if (ev.edit_timestamp && !ev.rendering_only) m.last_edit_timestamp = ev.edit_timestamp;
        }
        if ((newTopic !== undefined || newStream !== undefined) && ev.edit_timestamp) m.last_moved_timestamp = ev.edit_timestamp;
        if (newTopic !== undefined) m.subject = newTopic;
        if (newStream !== undefined) {
          m.stream_id = newStream;
          m.display_recipient = this.streamName(newStream);
        }
        if (ev.flags && id === ev.message_id) m.flags = ev.flags;
      }
    }
    if (ev.stream_id !== undefined && (newTopic !== undefined || newStream !== undefined)) {
      this.loadTopics(ev.stream_id);
      if (newStream !== undefined) this.loadTopics(newStream);
    }
    // Messages moved into or out of the channel whose topics are listed: its list is fetched again.
    const listed = this.channelRecent;
    if (listed?.messages && newStream !== undefined && (ev.stream_id === listed.streamId || newStream === listed.streamId)) void listed.load();
    for (const list of this.liveLists()) {
      // A move can take messages out of (or into) the narrow being viewed.
      if (newTopic !== undefined || newStream !== undefined) {
        const ctx = this.matchContext();
        const gone = new Set<number>();
        for (const m of list.messages) if (ids.includes(m.id) && matches(list.terms, m, ctx) === false) gone.add(m.id);
        if (gone.size) list.remove(gone);
      }
      list.touch();
    }
  }

  private onFlags(ev: Record<string, any>): void {
    const add = ev.op === 'add';
    const ids: number[] = ev.messages ?? [];
    if (ev.flag === 'starred') for (const id of ids) add ? this.starred.add(id) : this.starred.delete(id);
    if (ev.flag === 'read') {
      if (add) {
        if (ev.all) this.unread.clear();
        for (const id of ids) this.unread.delete(id);
      } else if (ev.message_details) {
        for (const [id, d] of Object.entries(ev.message_details as Record<string, any>)) {
          const mentioned = !!d.mentioned;
          if (d.type === 'stream') this.unread.set(Number(id), { kind: 'stream', streamId: d.stream_id, topic: d.topic, mentioned });
          else this.unread.set(Number(id), { kind: 'dm', dmKey: this.dmKey(d.user_ids ?? []), mentioned });
        }
      }
    }
    const set = new Set(ids);
    for (const list of this.liveLists()) {
      for (const m of list.messages) {
        if (!set.has(m.id) && !(ev.all && ev.flag === 'read')) continue;
        if (add && !m.flags.includes(ev.flag)) m.flags = [...m.flags, ev.flag];
        else if (!add) m.flags = m.flags.filter((f) => f !== ev.flag);
      }
      if (ev.flag === 'starred' && list.terms.some((t) => t.operator === 'is' && t.operand === 'starred')) {
        if (add) list.queueRefresh();
        else list.remove(set);
      }
      list.touch();
    }
  }

  private onSubscription(ev: Record<string, any>): void {
    if (ev.op === 'add') {
      for (const s of ev.subscriptions) {
        this.subs.set(s.stream_id, { ...this.toSub(s), is_recently_active: true });
        this.streams.set(s.stream_id, s);
        this.notePeers(s.stream_id, true, [this.me.user_id]);
      }
    } else if (ev.op === 'remove') {
      for (const s of ev.subscriptions) {
        this.subs.delete(s.stream_id);
        this.notePeers(s.stream_id, false, [this.me.user_id]);
        this.countSubscribers(s.stream_id, -1);
      }
    } else if (ev.op === 'peer_add' || ev.op === 'peer_remove') {
      const add = ev.op === 'peer_add';
      for (const id of ev.stream_ids ?? []) {
        this.notePeers(id, add, ev.user_ids ?? []);
        this.countSubscribers(id, (add ? 1 : -1) * (ev.user_ids ?? []).length);
      }
    } else if (ev.op === 'update') {
      const s = this.subs.get(ev.stream_id);
      if (!s) return;
      if (ev.property === 'in_home_view') s.is_muted = !ev.value;
      else if (ev.property in s) (s as any)[ev.property] = ev.value;
      // (The server sends in_home_view with is_muted: All messages follows the one.)
      if (ev.property === 'is_muted' && !ev.value) this.feedUnmuted();
    }
  }

  /** A channel's subscriber count changed by `delta` (one's own subscription's event carries the count itself). */
  private countSubscribers(streamId: number, delta: number): void {
    const s = this.streams.get(streamId);
    if (s && typeof s.subscriber_count === 'number') s.subscriber_count = Math.max(0, s.subscriber_count + delta);
  }

  /** Users subscribed to (`add`) or unsubscribed from a channel whose subscribers are kept. */
  private notePeers(streamId: number, add: boolean, userIds: number[]): void {
    this.subscriberEvents.get(streamId)?.push({ add, userIds });
    const set = this.subscribers.get(streamId);
    if (set) for (const id of userIds) add ? set.add(id) : set.delete(id);
  }

  /** Fetches a channel's subscribers (GET /streams/{id}/members), then keeps them current; `subscribers` has them once done. */
  loadSubscribers(streamId: number): Promise<void> {
    let load = this.subscriberLoads.get(streamId);
    if (!load) {
      load = this.fetchSubscribers(streamId).finally(() => this.subscriberLoads.delete(streamId));
      this.subscriberLoads.set(streamId, load);
    }
    return load;
  }

  /** A channel's subscribers: those kept, else fetched (undefined when the server refuses them). */
  async subscribersOf(streamId: number): Promise<Set<number> | undefined> {
    if (!this.subscribers.has(streamId)) await this.loadSubscribers(streamId).catch(() => undefined);
    return this.subscribers.get(streamId);
  }

  private async fetchSubscribers(streamId: number): Promise<void> {
    const events: Array<{ add: boolean; userIds: number[] }> = [];
    this.subscriberEvents.set(streamId, events);
    try {
      const r = await api('GET', `/streams/${streamId}/members`);
      const set = new Set<number>(r.subscribers as number[]);
      // Each event sets each of its users' state: replaying in order on any state in between gives the latest.
      for (const e of events) for (const id of e.userIds) e.add ? set.add(id) : set.delete(id);
      this.subscribers.set(streamId, set);
    } finally {
      this.subscriberEvents.delete(streamId);
      this.changed();
    }
  }

  /** realm_default_streams and default_streams events: channel IDs (objects in older servers). */
  private defaultStreamIds(list: Array<number | { stream_id: number }>): number[] {
    return list.map((s) => (typeof s === 'number' ? s : s.stream_id));
  }

  private onUserGroup(ev: Record<string, any>): void {
    if (ev.op === 'add') {
      this.groups.set(ev.group.id, this.toGroup(ev.group));
      return;
    }
    if (ev.op === 'remove') {
      this.groups.delete(ev.group_id);
      return;
    }
    const g = this.groups.get(ev.group_id);
    if (!g) return;
    const without = (ids: number[], gone: number[]) => ids.filter((id) => !gone.includes(id));
    if (ev.op === 'update') Object.assign(g, ev.data);
    else if (ev.op === 'add_members') g.members = [...without(g.members, ev.user_ids), ...ev.user_ids];
    else if (ev.op === 'remove_members') g.members = without(g.members, ev.user_ids);
    else if (ev.op === 'add_subgroups') g.direct_subgroup_ids = [...without(g.direct_subgroup_ids, ev.direct_subgroup_ids), ...ev.direct_subgroup_ids];
    else if (ev.op === 'remove_subgroups') g.direct_subgroup_ids = without(g.direct_subgroup_ids, ev.direct_subgroup_ids);
  }

  /** Whether the user is in the group: a direct member, or in one of its subgroups (at any depth). */
  inGroup(userId: number, groupId: number, seen = new Set<number>()): boolean {
    if (seen.has(groupId)) return false;
    seen.add(groupId);
    const g = this.groups.get(groupId);
    if (!g) return false;
    return g.members.includes(userId) || g.direct_subgroup_ids.some((id) => this.inGroup(userId, id, seen));
  }

  /** The general chat's name (the organization's realm_empty_topic_display_name). */
  generalChatName(): string {
    return String(this.realm.realm_empty_topic_display_name ?? 'general chat');
  }

  /** Whether a topic is the general chat (the empty topic, which the server names generalChatName() for clients like this one). */
  isGeneralChat(topic: string): boolean {
    return topic === '' || topic === this.generalChatName();
  }

  /**
   * A channel's topics policy in effect (Zulip's): its own topics_policy,
   * or with "inherit" the organization's (whose older mandatory_topics
   * means disable_empty_topic).
   */
  topicsPolicy(streamId: number): string {
    const own = this.streams.get(streamId)?.topics_policy;
    if (own && own !== 'inherit') return own;
    const realm = this.realm.realm_topics_policy;
    if (typeof realm === 'string' && realm !== 'inherit') return realm;
    return this.realm.realm_mandatory_topics === true ? 'disable_empty_topic' : 'allow_empty_topic';
  }

  /** A narrow as the server is asked for it: a spectator's within the web-public channels (the term the server requires of one, as Zulip's). */
  apiTerms<T extends { operator: string; operand: unknown }>(terms: T[]): Array<T | { operator: string; operand: string }> {
    return this.spectator ? [...terms, { operator: 'channels', operand: 'web-public' }] : terms;
  }

  /** Whether the user may post in a channel, as its can_send_message_group says (the server decides; this says so before sending). */
  mayPostIn(streamId: number): boolean {
    return this.channelAllows(streamId, 'can_send_message_group');
  }

  /**
   * Whether the user may start new topics in a channel (its
   * can_create_topic_group; Zulip's can_create_new_topics_in_stream). One
   * who may not still writes to the channel's existing topics.
   */
  mayCreateTopicIn(streamId: number): boolean {
    return this.channelAllows(streamId, 'can_create_topic_group');
  }

  /** Whether a channel's group setting, which takes in everyone unless the channel says otherwise, takes in the user; never a visitor. */
  private channelAllows(streamId: number, setting: 'can_send_message_group' | 'can_create_topic_group'): boolean {
    if (this.spectator) return false;
    const group = this.streams.get(streamId)?.[setting];
    return group === undefined || this.allows(this.me.user_id, group);
  }

  /**
   * Whether the user may edit a message's content, as the server decides
   * (Zulip's is_content_editable): their own, while the organization allows
   * editing and within its time limit (null: none; a few seconds' grace, as
   * Zulip's), not a poll or to-do list, not in an archived channel.
   */
  mayEdit(m: Message): boolean {
    if (m.sender_id !== this.me.user_id) return false;
    if (this.realm.realm_allow_message_editing === false) return false;
    if (m.submessages.length > 0) return false;
    if (this.inArchivedChannel(m)) return false;
    return this.withinLimit(m, this.realm.realm_message_content_edit_limit_seconds);
  }

  /**
   * Whether the user may delete a message, as the server decides (Zulip's
   * get_deletability): nothing in an archived channel; any message for the
   * organization's can_delete_any_message_group, and in a channel for its
   * can_delete_any_message_group; else their own (or their bots'), for the
   * organization's or the channel's can_delete_own_message_group, within the
   * organization's time limit.
   */
  mayDelete(m: Message): boolean {
    const me = this.me.user_id;
    const channel = m.type === 'stream' && m.stream_id !== undefined ? this.streams.get(m.stream_id) : undefined;
    if (this.inArchivedChannel(m)) return false;
    if (this.mayRealm('can_delete_any_message_group') || this.allows(me, channel?.can_delete_any_message_group)) return true;
    if (m.sender_id !== me && this.users.get(m.sender_id)?.bot_owner_id !== me) return false;
    if (!this.mayRealm('can_delete_own_message_group') && !this.allows(me, channel?.can_delete_own_message_group)) return false;
    return this.withinLimit(m, this.realm.realm_message_content_delete_limit_seconds);
  }

  /**
   * Whether the user may send a direct message to these people, as the
   * server decides (Zulip's user_can_direct_message): always to oneself and
   * to bots; else the organization's direct_message_permission_group must
   * take in one of the conversation's people, the user included.
   */
  private mayDirectMessage(userIds: number[]): boolean {
    if (this.onlySelfAndBots(userIds)) return true;
    const group = this.realm.realm_direct_message_permission_group as GroupSettingValue | undefined;
    if (group === undefined) return true;
    return [this.me.user_id, ...userIds].some((id) => this.allows(id, group));
  }

  /**
   * Whether the user may start a new direct-message conversation with these
   * people (the organization's direct_message_initiator_group; always with
   * oneself and bots). The server asks only for a conversation that has no
   * messages yet.
   */
  private mayStartDirectMessage(userIds: number[]): boolean {
    if (this.onlySelfAndBots(userIds)) return true;
    const group = this.realm.realm_direct_message_initiator_group as GroupSettingValue | undefined;
    return group === undefined || this.allows(this.me.user_id, group);
  }

  /**
   * Why the user may not send a direct message to these people, in the words
   * of Zulip's compose box (check_dm_permissions_and_get_error_string), or
   * null: no one in the conversation may authorize it (the organization's
   * permission group empty: direct messages are off), or a conversation the
   * client knows to be empty that the user may not start.
   */
  directMessageRefusal(userIds: number[]): string | null {
    if (!this.mayDirectMessage(userIds)) {
      return this.settingEmpty(this.realm.realm_direct_message_permission_group as GroupSettingValue | undefined) ? DM_REFUSALS.disabled : DM_REFUSALS.noAuthorizer;
    }
    if (!this.mayStartDirectMessage(userIds) && this.knownEmptyConversation(userIds)) return DM_REFUSALS.mayNotStart;
    return null;
  }

  /**
   * Whether the direct-message conversation with these people is known to
   * have no messages (Zulip's is_known_empty_conversation): not among the
   * recent conversations, and the view open is that conversation alone,
   * fetched up to its newest message, with none. Elsewhere the client cannot
   * know; the server says so when a message is sent.
   */
  private knownEmptyConversation(userIds: number[]): boolean {
    const key = this.dmKey(userIds);
    if (this.recentDms.has(key)) return false;
    const list = this.list;
    if (!list || list.loading || !list.foundNewest || list.messages.length > 0 || list.terms.length !== 1) return false;
    const [term] = list.terms;
    return term!.operator === 'dm' && !term!.negated && Array.isArray(term!.operand) && this.dmKey(term!.operand as number[]) === key;
  }

  private onlySelfAndBots(userIds: number[]): boolean {
    return userIds.every((id) => id === this.me.user_id || this.users.get(id)?.is_bot);
  }

  /** Whether a group setting takes in no one (Zulip's is_setting_group_empty): no members, and its groups empty at any depth. */
  private settingEmpty(value: GroupSettingValue | undefined): boolean {
    if (value === undefined) return false;
    const groupEmpty = (id: number, seen: Set<number>): boolean => {
      if (seen.has(id)) return true;
      seen.add(id);
      const g = this.groups.get(id);
      return !g || (g.members.length === 0 && g.direct_subgroup_ids.every((sub) => groupEmpty(sub, seen)));
    };
    if (typeof value === 'number') return groupEmpty(value, new Set());
    return value.direct_members.length === 0 && value.direct_subgroups.every((id) => groupEmpty(id, new Set()));
  }

  /**
   * Whether the organization lets the user change their own name, email
   * address or avatar (Zulip's user_can_change_name and the like):
   * administrators always; others unless the organization (or, for names
   * and avatars, the server) has turned such changes off.
   */
  mayChangeOwn(what: 'name' | 'email' | 'avatar'): boolean {
    if (this.me.role !== undefined && this.me.role <= 200) return true;
    if (this.realm[`realm_${what}_changes_disabled`] === true) return false;
    return what === 'email' || this.realm[`server_${what}_changes_disabled`] !== true;
  }

  /**
   * Whether the user may resolve and unresolve a channel's topics, as the
   * server decides: the organization's or the channel's
   * can_resolve_topics_group; never in an archived channel (its messages
   * stay as they are, as Zulip's), nor are its messages moved (below).
   */
  mayResolveIn(streamId: number): boolean {
    if (this.isArchived(streamId)) return false;
    return this.mayRealm('can_resolve_topics_group') || this.allows(this.me.user_id, this.streams.get(streamId)?.can_resolve_topics_group);
  }

  /**
   * Whether the user may move a channel's messages to another of its topics
   * (the organization's can_move_messages_between_topics_group or the
   * channel's can_move_messages_within_channel_group), as the server decides
   * (its time limits aside).
   */
  mayMoveWithin(streamId: number): boolean {
    if (this.isArchived(streamId)) return false;
    return this.mayRealm('can_move_messages_between_topics_group') || this.allows(this.me.user_id, this.streams.get(streamId)?.can_move_messages_within_channel_group);
  }

  /**
   * Whether the user may move a channel's messages to another channel:
   * administrators, the organization's can_move_messages_between_channels_group,
   * the channel's administrators and its can_move_messages_out_of_channel_group
   * (the server's time limits aside).
   */
  mayMoveOut(streamId: number): boolean {
    if (this.spectator || this.isArchived(streamId)) return false;
    // (mayAdministerChannel takes in the organization's administrators.)
    return (
      this.mayRealm('can_move_messages_between_channels_group') ||
      this.mayAdministerChannel(streamId) ||
      this.allows(this.me.user_id, this.streams.get(streamId)?.can_move_messages_out_of_channel_group)
    );
  }

  /**
   * Whether the user may add or remove reactions on a message, as the server
   * decides: not in an archived channel (Zulip's web app shows that
   * channel's reactions greyed out, with no button to add one).
   */
  mayReact(m: Message): boolean {
    return !this.inArchivedChannel(m);
  }

  /** Whether a message is in an archived channel (whose messages stay as they are). */
  private inArchivedChannel(m: Message): boolean {
    return m.type === 'stream' && m.stream_id !== undefined && this.isArchived(m.stream_id);
  }

  /** Whether a message is young enough for a time limit in seconds (null or none: no limit), with Zulip's 10 seconds' grace. */
  private withinLimit(m: Message, limit: unknown): boolean {
    if (typeof limit !== 'number') return true;
    return Date.now() / 1000 + this.serverTimeOffset - m.timestamp < limit + 10;
  }

  /** Whether the user may administer a channel, as the server decides: organization administrators, and its can_administer_channel_group. */
  mayAdministerChannel(streamId: number): boolean {
    return this.me.role <= 200 || this.allows(this.me.user_id, this.streams.get(streamId)?.can_administer_channel_group);
  }

  /**
   * Whether the user may subscribe others to a channel, as the server
   * decides: its administrators, its can_add_subscribers_group, and for a
   * public channel the organization's can_add_subscribers_group.
   */
  maySubscribeOthers(streamId: number): boolean {
    const c = this.streams.get(streamId);
    if (!c) return false;
    const me = this.me.user_id;
    return this.mayAdministerChannel(streamId) || this.allows(me, c.can_add_subscribers_group) || (!c.invite_only && this.allows(me, this.realm.realm_can_add_subscribers_group));
  }

  /**
   * Whether the user may subscribe themselves to a channel they are not in
   * (Zulip's can_toggle_subscription, through has_content_access): a
   * web-public channel; for a member (not a guest), a public one, or a
   * private one whose can_subscribe_group or can_add_subscribers_group takes
   * them in; not an archived one; never for a visitor. (True for a channel
   * they are in, which they may leave.)
   */
  mayJoin(streamId: number): boolean {
    if (this.spectator) return false;
    if (this.subs.has(streamId)) return true;
    const c = this.streams.get(streamId);
    if (!c || c.is_archived) return false;
    if (c.is_web_public) return true;
    if (this.isGuest(this.me.user_id)) return false;
    const me = this.me.user_id;
    return !c.invite_only || this.allows(me, c.can_subscribe_group) || this.allows(me, c.can_add_subscribers_group);
  }

  /** Whether the user may unsubscribe others from a channel, as the server decides: its administrators and its can_remove_subscribers_group. */
  mayUnsubscribeOthers(streamId: number): boolean {
    return this.mayAdministerChannel(streamId) || this.allows(this.me.user_id, this.streams.get(streamId)?.can_remove_subscribers_group);
  }

  /**
   * Whether one of the organization's group settings (realm_<setting>, e.g.
   * can_invite_users_group) takes in the user, as the server decides; never
   * for a visitor.
   */
  mayRealm(setting: string): boolean {
    if (this.spectator) return false;
    return this.allows(this.me.user_id, this.realm[`realm_${setting}`] as GroupSettingValue | undefined);
  }

  /** Whether a group setting's value takes in the user. */
  allows(userId: number, value: GroupSettingValue | undefined): boolean {
    if (value === undefined) return false;
    if (typeof value === 'number') return this.inGroup(userId, value);
    return value.direct_members.includes(userId) || value.direct_subgroups.some((id) => this.inGroup(userId, id));
  }

  private onTyping(ev: Record<string, any>): void {
    let key: string;
    if (ev.message_type === 'stream') key = `stream:${ev.stream_id}:${String(ev.topic).toLowerCase()}`;
    else key = `dm:${this.dmKey([...(ev.recipients ?? []).map((r: any) => r.user_id)])}`;
    const senderId = ev.sender?.user_id;
    if (senderId === undefined || senderId === this.me.user_id) return;
    let m = this.typing.get(key);
    if (!m) this.typing.set(key, (m = new Map()));
    if (ev.op === 'start') {
      const expiry = this.realm.server_typing_started_expiry_period_milliseconds ?? 15000;
      m.set(senderId, Date.now() + expiry);
      setTimeout(() => this.changed(), expiry + 50);
    } else {
      m.delete(senderId);
    }
  }

  // ------------------------------------------------------------------ actions

  async markRead(ids: number[]): Promise<void> {
    const fresh = ids.filter((id) => this.unread.has(id));
    if (!fresh.length) return;
    for (const id of fresh) this.unread.delete(id);
    for (const list of this.liveLists()) for (const m of list.messages) if (fresh.includes(m.id) && !m.flags.includes('read')) m.flags = [...m.flags, 'read'];
    this.changed();
    try {
      await api('POST', '/messages/flags', { messages: fresh, op: 'add', flag: 'read' });
    } catch (err) {
      if (err instanceof ApiError) console.warn('mark read failed', err.message);
    }
  }
}

/** Custom profile fields in their order. */
function byOrder(fields: ProfileField[]): ProfileField[] {
  return [...fields].sort((a, b) => a.order - b.order);
}

/** A realm_user update's custom_profile_field: the user's new value of one field, or none (null). */
export function setProfileValue(u: User, f: { id: number; value: string | null; rendered_value?: string }): void {
  const data = { ...(u.profile_data ?? {}) };
  if (f.value === null) delete data[String(f.id)];
  else data[String(f.id)] = f.rendered_value === undefined ? { value: f.value } : { value: f.value, rendered_value: f.rendered_value };
  u.profile_data = data;
}

/** The fields of `o` among `keys` that it has. */
function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}

export const model = new Model();
