/**
 * Scheduled messages: create, list, edit and delete a sender's scheduled
 * messages (validated like sending now: addressing, permissions, topic and
 * content rules), the `scheduled_messages` events to the sender, and the
 * delivery timer that sends due messages through sendMessage as the sender.
 * A failed delivery keeps the message with `failed: true` and Notification
 * Bot tells the sender why.
 */
import { refreshingFirst } from './cache.ts';
import { startPeriodicJob } from '../lib/periodic.ts';
import type { Services } from '../services.ts';
import { transaction, type Tx } from '../store/db.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import { LIMITS, checkIntRange } from '../lib/limits.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { realmById } from '../store/realm.ts';
import { userById, type UserRow } from '../store/users.ts';
import { addressDirect, addressStream, defaultReadBySender, normalizeContent, sendMessage } from './messages.ts';
import { render } from './messages-format.ts';
import { notificationBot } from './system-bots.ts';
import {
  deleteScheduledMessage,
  DELIVERY_TYPE,
  dueScheduledMessages,
  insertScheduledMessage,
  scheduledMessageById,
  scheduledMessageOf,
  undeliveredScheduledMessages,
  markScheduledMessageDelivered,
  updateUndeliveredScheduledMessage,
  type ScheduledMessageRow,
} from '../store/scheduled-messages.ts';
import { withClusterLock } from '../store/locks.ts';
import type { EventQueue } from '../events/queue.ts';
import type { EventMeta, ZulipEvent } from '../events/types.ts';
import { jsonOrUndefined } from '../lib/util.ts';

/** How late (seconds) a scheduled message may still be sent (Zulip: 10 minutes). */
export const LATE_CUTOFF_SECONDS = 10 * 60;

export type ScheduledType = 'stream' | 'channel' | 'private' | 'direct';

const isChannelType = (t: ScheduledType): boolean => t === 'stream' || t === 'channel';

/** The channel ID of `to` for a channel message: an integer. */
function parseChannelId(to: string): number {
  const s = to.trim();
  if (!/^[+-]?\d+$/.test(s)) throw badRequest('Invalid data type for channel ID');
  return checkIntRange(Number.parseInt(s, 10), 'to');
}

/** The user IDs of `to` for a direct message: a JSON list of integers. */
function parseUserIds(to: string): number[] {
  const data = jsonOrUndefined(to);
  if (!Array.isArray(data)) throw badRequest('Invalid data type for recipients');
  if (data.length > LIMITS.listMaxLength) throw badRequest('to is too long');
  for (const x of data) if (typeof x !== 'number' || !Number.isInteger(x)) throw badRequest('Recipient list may only contain user IDs');
  for (const x of data as number[]) checkIntRange(x, 'to');
  return [...new Set(data as number[])];
}

const notFound = (): ApiError => new ApiError('Scheduled message does not exist', { status: 404 });
const futureRequired = (): ApiError => badRequest('Scheduled delivery time must be in the future.');

/** Zulip's scheduled message object. */
export function formatScheduledMessage(row: ScheduledMessageRow): Record<string, unknown> {
  const base = { scheduled_message_id: row.id };
  const common = { content: row.content, rendered_content: row.rendered_content };
  if (row.recipient_type === 'stream') {
    return { ...base, to: row.stream_id, type: 'stream', ...common, topic: row.topic, scheduled_delivery_timestamp: Number(row.scheduled_timestamp), failed: !!row.failed };
  }
  return { ...base, to: JSON.parse(row.to_json) as number[], type: 'private', ...common, scheduled_delivery_timestamp: Number(row.scheduled_timestamp), failed: !!row.failed };
}

interface Checked {
  recipientType: 'stream' | 'private';
  streamId: number | null;
  /** Stored recipient list: the other participants (the sender alone for a message to self). */
  toIds: number[];
  topic: string;
}

/** Validates addressing exactly as sending now would (permissions included). */
async function checkAddress(svc: Services, tx: Tx, sender: UserRow, type: ScheduledType, to: string, topic: string | undefined, settings: Record<string, unknown>): Promise<Checked> {
  if (isChannelType(type)) {
    const streamId = parseChannelId(to);
    const addr = await addressStream(svc, tx, sender, String(streamId), topic, settings);
    return { recipientType: 'stream', streamId: addr.recipientId, toIds: [addr.recipientId], topic: addr.topic };
  }
  const ids = parseUserIds(to);
  const addr = await addressDirect(svc, tx, sender, JSON.stringify(ids));
  const others = addr.userIds.filter((id) => id !== sender.id);
  return { recipientType: 'private', streamId: null, toIds: others.length ? others : [sender.id], topic: '' };
}

async function loadSettings(tx: Tx, svc: Services): Promise<Record<string, unknown>> {
  return realmSettings((await realmById(tx, svc.realmId)).settings_json);
}

function emptyName(settings: Record<string, unknown>): string {
  return String(settings.empty_topic_display_name);
}

function notify(svc: Services, userId: number, event: ZulipEvent, emptyTopicDisplayName: string): void {
  svc.bus.send(event, [userId], { meta: { emptyTopicName: emptyTopicDisplayName } });
}

export interface ScheduleInput {
  type: ScheduledType;
  to: string;
  topic: string | undefined;
  content: string;
  scheduledDeliveryTimestamp: number;
  readBySender: boolean | undefined;
  clientName: string;
}

export async function createScheduledMessage(svc: Services, sender: UserRow, input: ScheduleInput): Promise<{ scheduled_message_id: number }> {
  if (input.scheduledDeliveryTimestamp <= Date.now() / 1000) throw futureRequired();
  const content = normalizeContent(input.content, svc.config.maxMessageLength);
  const rendered = await render(svc, svc.store.db, content); // before the transaction: no connection waits on the renderer
  const result = await transaction(svc.store, async (tx) => {
    const settings = await loadSettings(tx, svc);
    const addr = await checkAddress(svc, tx, sender, input.type, input.to, input.topic, settings);
    const toSelfOnly = addr.recipientType === 'private' && addr.toIds.length === 1 && addr.toIds[0] === sender.id;
    const readBySender = input.readBySender ?? (defaultReadBySender(input.clientName) && !toSelfOnly);
    const id = await insertScheduledMessage(tx, {
      realm_id: svc.realmId,
      sender_id: sender.id,
      recipient_type: addr.recipientType,
      stream_id: addr.streamId,
      to_json: JSON.stringify(addr.toIds),
      topic: addr.topic,
      content,
      rendered_content: rendered.html,
      scheduled_timestamp: input.scheduledDeliveryTimestamp,
      read_by_sender: readBySender ? 1 : 0,
      sending_client: input.clientName,
    });
    return { row: (await scheduledMessageById(tx, id))!, emptyName: emptyName(settings) };
  });
  notify(svc, sender.id, { type: 'scheduled_messages', op: 'add', scheduled_messages: [formatScheduledMessage(result.row)] }, result.emptyName);
  return { scheduled_message_id: result.row.id };
}

export async function listScheduledMessages(svc: Services, user: UserRow): Promise<Record<string, unknown>[]> {
  return (await undeliveredScheduledMessages(svc.store.db, svc.realmId, user.id)).map(formatScheduledMessage);
}

export interface EditInput {
  type: ScheduledType | undefined;
  to: string | undefined;
  topic: string | undefined;
  content: string | undefined;
  scheduledDeliveryTimestamp: number | undefined;
  clientName: string;
}

export async function editScheduledMessage(svc: Services, sender: UserRow, id: number, input: EditInput): Promise<void> {
  if (input.type === undefined && input.to === undefined && input.topic === undefined && input.content === undefined && input.scheduledDeliveryTimestamp === undefined) {
    throw badRequest('Nothing to change');
  }
  if (input.type !== undefined && input.to === undefined) throw badRequest('Recipient required when updating type of scheduled message.');
  if (input.type !== undefined && isChannelType(input.type) && input.topic === undefined) throw badRequest('Topic required when updating scheduled message type to channel.');
  if (input.scheduledDeliveryTimestamp !== undefined && input.scheduledDeliveryTimestamp <= Date.now() / 1000) throw futureRequired();
  // New content is rendered before the transaction: no connection waits on the renderer.
  const newContent = input.content === undefined ? undefined : normalizeContent(input.content, svc.config.maxMessageLength);
  const rendered = newContent === undefined ? undefined : await render(svc, svc.store.db, newContent);

  const result = await transaction(svc.store, async (tx) => {
    const row = await scheduledMessageOf(tx, svc.realmId, sender.id, id);
    if (!row) throw notFound();
    if (row.delivered) throw badRequest('Scheduled message was already sent');
    if (row.failed && input.scheduledDeliveryTimestamp === undefined) throw futureRequired();
    const settings = await loadSettings(tx, svc);
    const existingType: ScheduledType = row.recipient_type === 'stream' ? 'stream' : 'private';
    const set: Parameters<typeof updateUndeliveredScheduledMessage>[2] = { sending_client: input.clientName };

    const recipientChanged = input.type !== undefined || input.to !== undefined;
    if (recipientChanged || input.content !== undefined) {
      // Check the message again, as if sent now, with the updated parts.
      const type = input.type ?? existingType;
      const to = input.to ?? (existingType === 'stream' ? String(row.stream_id) : row.to_json);
      const topic = input.topic ?? row.topic;
      const content = newContent ?? normalizeContent(row.content, svc.config.maxMessageLength);
      const addr = await checkAddress(svc, tx, sender, type, to, topic, settings);
      if (recipientChanged) {
        set.recipient_type = addr.recipientType;
        set.stream_id = addr.streamId;
        set.to_json = JSON.stringify(addr.toIds);
        set.topic = addr.topic;
      } else if (input.topic !== undefined && existingType === 'stream') {
        set.topic = addr.topic;
      }
      if (rendered) {
        set.content = content;
        set.rendered_content = rendered.html;
      }
    } else if (input.topic !== undefined && existingType === 'stream') {
      // A new topic only (ignored for direct messages): the channel's topic rules apply.
      const addr = await checkAddress(svc, tx, sender, 'stream', String(row.stream_id), input.topic, settings);
      set.topic = addr.topic;
    }
    if (input.scheduledDeliveryTimestamp !== undefined) set.scheduled_timestamp = input.scheduledDeliveryTimestamp;
    if (row.failed) {
      set.failed = 0;
      set.failure_message = null;
    }
    // Delivery may have sent it since it was read here (PostgreSQL reads committed rows).
    if (!(await updateUndeliveredScheduledMessage(tx, row.id, set))) throw badRequest('Scheduled message was already sent');
    return { row: (await scheduledMessageById(tx, row.id))!, emptyName: emptyName(settings) };
  });
  notify(svc, sender.id, { type: 'scheduled_messages', op: 'update', scheduled_message: formatScheduledMessage(result.row) }, result.emptyName);
}

export async function removeScheduledMessage(svc: Services, sender: UserRow, id: number): Promise<void> {
  const row = await transaction(svc.store, async (tx) => {
    const r = await scheduledMessageOf(tx, svc.realmId, sender.id, id);
    if (!r) throw notFound();
    await deleteScheduledMessage(tx, r.id);
    return r;
  });
  svc.bus.send({ type: 'scheduled_messages', op: 'remove', scheduled_message_id: row.id }, [sender.id]);
}

// ---------------------------------------------------------------------------
// Delivery

/** Why delivery failed, and whether the sender is told (not when the account is deactivated). */
class DeliveryFailure extends Error {
  readonly notifySender: boolean;
  constructor(msg: string, notifySender: boolean) {
    super(msg);
    this.notifySender = notifySender;
  }
}

/** The row was deleted, edited, sent or failed after it was read as due: its send is rolled back (a later pass sees it as it is now). */
class NoLongerDue extends Error {}

/** Marks the row delivered in the send's own transaction, so the message and the row's state commit together. */
function markDelivered(row: ScheduledMessageRow): (tx: Tx, messageId: number) => Promise<void> {
  return async (tx, messageId) => {
    if (!(await markScheduledMessageDelivered(tx, row, messageId))) throw new NoLongerDue();
  };
}

/** Sends one row read as due; 'skipped' if it changed or went away before the send committed. */
export async function deliverOne(svc: Services, row: ScheduledMessageRow, now: number): Promise<'delivered' | 'failed' | 'skipped'> {
  const sender = await userById(svc.store.db, svc.realmId, row.sender_id);
  try {
    if (!sender || !sender.is_active) throw new DeliveryFailure('Account is deactivated.', false);
    if (now > Number(row.scheduled_timestamp) + LATE_CUTOFF_SECONDS) throw new DeliveryFailure('Message could not be sent at the scheduled time.', true);
    if (row.delivery_type === DELIVERY_TYPE.REMIND) return await deliverReminder(svc, row, sender);
    const isStream = row.recipient_type === 'stream';
    await sendMessage(svc, sender, {
      type: isStream ? 'stream' : 'private',
      to: isStream ? String(row.stream_id) : row.to_json,
      topic: isStream ? row.topic : undefined,
      content: row.content,
      readBySender: !!row.read_by_sender,
      clientName: row.sending_client,
      inTransaction: markDelivered(row),
    });
    svc.bus.send({ type: 'scheduled_messages', op: 'remove', scheduled_message_id: row.id }, [row.sender_id]);
    return 'delivered';
  } catch (e) {
    if (e instanceof NoLongerDue) return 'skipped';
    const message = e instanceof DeliveryFailure || e instanceof ApiError ? e.message : 'Internal server error';
    if (!(e instanceof DeliveryFailure) && !(e instanceof ApiError)) svc.log.error({ err: e, scheduledMessageId: row.id }, 'scheduled message delivery failed');
    // Only a row still waiting is marked failed (not one deleted or sent meanwhile).
    if (!(await updateUndeliveredScheduledMessage(svc.store.db, row.id, { failed: 1, failure_message: message }))) return 'skipped';
    if (row.delivery_type === DELIVERY_TYPE.REMIND) return 'failed';
    const updated = await scheduledMessageById(svc.store.db, row.id);
    if (updated && sender && !(e instanceof DeliveryFailure && !e.notifySender)) {
      const settings = await loadSettings(svc.store.db, svc);
      notify(svc, sender.id, { type: 'scheduled_messages', op: 'update', scheduled_message: formatScheduledMessage(updated) }, emptyName(settings));
      await notifyFailure(svc, sender, row, message);
    }
    return 'failed';
  }
}

/** A reminder goes out as a direct message from Notification Bot to the user who asked for it. */
async function deliverReminder(svc: Services, row: ScheduledMessageRow, user: UserRow): Promise<'delivered'> {
  const bot = await notificationBot(svc);
  await sendMessage(svc, bot, { type: 'private', to: JSON.stringify([user.id]), topic: undefined, content: row.content, clientName: 'Internal', inTransaction: markDelivered(row) });
  svc.bus.send({ type: 'reminders', op: 'remove', reminder_id: row.id }, [user.id]);
  return 'delivered';
}

/** Notification Bot tells the sender that a scheduled message was not sent, and why. */
async function notifyFailure(svc: Services, sender: UserRow, row: ScheduledMessageRow, reason: string): Promise<void> {
  try {
    const bot = await notificationBot(svc);
    const when = new Date(Number(row.scheduled_timestamp) * 1000).toISOString();
    const quoted = reason
      .split('\n')
      .map((l) => `> ${l}`)
      .join('\n');
    await sendMessage(svc, bot, {
      type: 'private',
      to: JSON.stringify([sender.id]),
      topic: undefined,
      content: `Your message scheduled for <time:${when}> was not sent. The error was:\n\n${quoted}\n\n[View scheduled messages](#scheduled)`,
      clientName: 'Internal',
    });
  } catch (e) {
    svc.log.warn({ err: e }, 'scheduled message failure notice not sent');
  }
}

const DELIVERY_LOCK = 'scheduled-message-delivery';

/**
 * Sends every scheduled message due at `now` (UNIX seconds; the current
 * time unless given). Returns how many were delivered and how many failed.
 * One process at a time delivers (a cluster-wide lock; with `wait: false`
 * a pass another process is running is skipped), so each message goes out
 * once however many processes run.
 */
export async function deliverDueScheduledMessages(svc: Services, now = Date.now() / 1000, opts = { wait: true }): Promise<{ delivered: number; failed: number }> {
  const out = { delivered: 0, failed: 0 };
  await withClusterLock(svc.store, DELIVERY_LOCK, opts, async () => {
    for (;;) {
      const due = await dueScheduledMessages(svc.store.db, svc.realmId, now);
      if (!due.length) return;
      for (const row of due) {
        const outcome = await deliverOne(svc, row, now);
        if (outcome !== 'skipped') out[outcome]++;
      }
    }
  });
  return out;
}

/** The delivery timer: checks every `intervalMs` for due messages; never keeps the process alive. */
export function startScheduledDelivery(svc: Services, intervalMs = 1000): { stop(): Promise<void> } {
  // The first pass, at start, sends messages that came due while the server was down.
  return startPeriodicJob(svc.log, 'scheduled message delivery pass', intervalMs, refreshingFirst(svc, () => deliverDueScheduledMessages(svc, Date.now() / 1000, { wait: false })));
}

/** scheduled_messages events: the empty topic is named for clients without the empty_topic_name capability. */
export function scheduledMessagesEventFilter(q: EventQueue, event: ZulipEvent, meta: EventMeta): ZulipEvent | null {
  const name = meta.emptyTopicName;
  if (name === undefined || q.opts.clientCapabilities.empty_topic_name) return event;
  const rest = { ...event };
  const fix = (m: Record<string, unknown>): Record<string, unknown> => (m.type === 'stream' && m.topic === '' ? { ...m, topic: name } : m);
  if (Array.isArray(rest.scheduled_messages)) rest.scheduled_messages = (rest.scheduled_messages as Record<string, unknown>[]).map(fix);
  if (rest.scheduled_message) rest.scheduled_message = fix(rest.scheduled_message as Record<string, unknown>);
  return rest;
}
