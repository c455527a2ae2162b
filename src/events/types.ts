/**
 * The event contract: what actions send, what the fan-out carries, what the
 * per-queue filters see. `ZulipEvent` is a union discriminated by `type`, so
 * tsc rejects an event type Parley does not know and an event missing the
 * fields its type requires. Data the filters need but clients must never
 * see travels beside the event, in `EventMeta`, never inside it.
 */

/** Fields every event may carry (the queue adds `id`). */
interface EventBase {
  id?: number;
  [key: string]: unknown;
}

/** An event whose shape is only checked for its `type` (and `op` where it has one). */
interface Plain<T extends string> extends EventBase {
  type: T;
}

export interface MessageEvent extends EventBase {
  type: 'message';
  message: Record<string, unknown>;
  flags?: string[];
}

export interface UpdateMessageEvent extends EventBase {
  type: 'update_message';
  user_id: number | null;
  edit_timestamp: number;
  message_id: number;
  message_ids: number[];
  rendering_only: boolean;
}

export interface DeleteMessageEvent extends EventBase {
  type: 'delete_message';
  message_type: 'stream' | 'private';
  /** The deleted messages (clients with bulk_message_deletion). */
  message_ids?: number[];
  /** The one deleted message of a legacy copy (see the delete_message filter). */
  message_id?: number;
}

export interface StreamEvent extends EventBase {
  type: 'stream';
  op: 'create' | 'delete' | 'update';
}

export interface SubscriptionEvent extends EventBase {
  type: 'subscription';
  op: 'add' | 'remove' | 'update' | 'peer_add' | 'peer_remove';
}

export interface RealmUserEvent extends EventBase {
  type: 'realm_user';
  op: 'add' | 'remove' | 'update';
  person: Record<string, unknown>;
}

export interface RealmBotEvent extends EventBase {
  type: 'realm_bot';
  op: 'add' | 'remove' | 'delete' | 'update';
  bot: Record<string, unknown>;
}

export interface ReactionEvent extends EventBase {
  type: 'reaction';
  op: 'add' | 'remove';
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

export interface TypingEvent extends EventBase {
  type: 'typing';
  op: 'start' | 'stop';
  message_type: 'stream' | 'direct';
}

export interface PresenceEvent extends EventBase {
  type: 'presence';
}

export interface HeartbeatEvent extends EventBase {
  type: 'heartbeat';
}

/** Event types whose fields are not described above; tsc still checks the type name. */
export type OtherEventType =
  | 'alert_words'
  | 'attachment'
  | 'channel_folder'
  | 'custom_profile_fields'
  | 'default_streams'
  | 'device'
  | 'drafts'
  | 'invites_changed'
  | 'muted_topics'
  | 'muted_users'
  | 'navigation_view'
  | 'realm'
  | 'realm_domains'
  | 'realm_emoji'
  | 'realm_export'
  | 'realm_export_consent'
  | 'realm_linkifiers'
  | 'realm_playgrounds'
  | 'realm_user_settings_defaults'
  | 'reminders'
  | 'saved_snippets'
  | 'scheduled_messages'
  | 'submessage'
  | 'typing_edit_message'
  | 'update_message_flags'
  | 'user_group'
  | 'user_settings'
  | 'user_status'
  | 'user_topic';

export type ZulipEvent =
  | MessageEvent
  | UpdateMessageEvent
  | DeleteMessageEvent
  | StreamEvent
  | SubscriptionEvent
  | RealmUserEvent
  | RealmBotEvent
  | ReactionEvent
  | TypingEvent
  | PresenceEvent
  | HeartbeatEvent
  | Plain<OtherEventType>;

export type EventType = ZulipEvent['type'];

/** The event of one type. */
export type EventOf<T extends EventType> = Extract<ZulipEvent, { type: T }>;

/**
 * Routing data for the per-queue filters, carried beside the event (never
 * sent to a client). Every field is optional; a sender fills what its
 * event type's filter reads.
 */
export interface EventMeta {
  /** The organization's name for the empty topic, for clients without the empty_topic_name capability. */
  emptyTopicName?: string;
  /** message: the Markdown source, for apply_markdown=false clients and narrow matching. */
  rawContent?: string;
  /** message: the sender's queue and local id (local_message_id goes back to that queue only). */
  senderQueueId?: string | null;
  localId?: string | null;
  /** stream: what clients without the archived_channels capability get instead (null: nothing). */
  withoutArchivedChannels?: ZulipEvent | null;
  /** subscription: the event's channels that are archived, left out for clients without the archived_channels capability. */
  archivedStreamIds?: number[];
  /** user_group: what clients without the include_deactivated_groups capability get instead (null: nothing). */
  withoutDeactivatedGroups?: ZulipEvent | null;
  /** realm_user add: the person is an "Unknown user" placeholder, not sent to user_list_incomplete clients. */
  inaccessibleUser?: boolean;
  /** message: the recipients who may not access the sender, and the sender fields they get instead. */
  hiddenSender?: { userIds: number[]; fields: Record<string, unknown> };
}

/**
 * A recipient of an event: a user ID, or a user ID with per-user data (for
 * message events, the user's flags) merged into that user's copy.
 */
export type Recipient = number | { id: number; extra: Record<string, unknown> };

/** What the fan-out carries: one event, who receives it, and its routing data. */
export interface Envelope {
  event: ZulipEvent;
  recipients: readonly Recipient[];
  options?: DeliveryOptions;
}

export interface DeliveryOptions {
  /**
   * Also deliver to every queue registered with all_public_streams (a public
   * channel message), for users not among the recipients, with no flags.
   */
  allPublicStreamsQueues?: boolean;
  /** Data for the queue filters (see EventMeta). */
  meta?: EventMeta;
}
