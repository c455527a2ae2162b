/**
 * Typing notifications (POST /typing). Nothing is stored: a notification is
 * checked and turned into a `typing` event for the conversation's users
 * whose receives_typing_notifications setting is on.
 *
 * Direct-message typing lives here. Channel typing needs channels: the
 * channels module registers its handler with setChannelTypingHandler (it
 * checks access to the channel and sends the event to subscribers); until it
 * does, every channel ID is unknown. Typing while editing a message
 * (POST /messages/{message_id}/typing, FL 351) needs messages and is not
 * here yet.
 */
import type { Services } from '../services.ts';
import { badRequest } from '../lib/errors.ts';
import { userSettings } from '../lib/user-settings.ts';
import { usersByIds, type UserRow } from '../store/users.ts';

export type TypingOp = 'start' | 'stop';

export interface TypingInput {
  type: 'direct' | 'stream' | 'channel';
  op: TypingOp;
  to?: number[];
  streamId?: number;
  topic?: string;
}

/**
 * Sends channel typing for a sender whose stream_id and topic have been
 * checked as present and whose send_stream_typing_notifications is on:
 * must check channel access (Zulip's "Invalid channel ID"), the permission
 * to post, apply the empty-topic naming rules, and send the event.
 */
export type ChannelTypingHandler = (svc: Services, sender: UserRow, op: TypingOp, streamId: number, topic: string) => Promise<void>;

let channelTyping: ChannelTypingHandler | null = null;

export function setChannelTypingHandler(handler: ChannelTypingHandler | null): void {
  channelTyping = handler;
}

const person = (u: UserRow) => ({ user_id: u.id, email: u.email });

export function receivesTyping(u: UserRow): boolean {
  return u.is_active === 1 && userSettings(u.settings_json).receives_typing_notifications !== false;
}

export async function sendTyping(svc: Services, sender: UserRow, input: TypingInput): Promise<void> {
  const settings = userSettings(sender.settings_json);
  if (input.type === 'stream' || input.type === 'channel') {
    if (input.streamId === undefined) throw badRequest("Missing 'stream_id' argument");
    if (input.topic === undefined) throw badRequest('Missing topic');
    if (settings.send_stream_typing_notifications === false) {
      throw badRequest('User has disabled typing notifications for channel messages');
    }
    if (!channelTyping) throw badRequest('Invalid channel ID');
    await channelTyping(svc, sender, input.op, input.streamId, input.topic);
    return;
  }

  if (input.to === undefined) throw badRequest("Missing 'to' argument");
  if (input.to.length === 0) throw badRequest("Empty 'to' list");
  if (settings.send_private_typing_notifications === false) {
    throw badRequest('User has disabled typing notifications for direct messages');
  }
  // The conversation always includes the sender. Any unknown user rejects
  // the whole request (a partial list would name the wrong conversation).
  const ids = [...new Set(input.to)];
  if (!ids.includes(sender.id)) ids.push(sender.id);
  const rows = await usersByIds(svc.store.db, svc.realmId, ids);
  const byId = new Map(rows.map((u) => [u.id, u]));
  const missing = ids.find((id) => !byId.has(id));
  if (missing !== undefined) throw badRequest(`Invalid user ID ${missing}`);
  const users = ids.map((id) => byId.get(id) as UserRow);
  svc.bus.send(
    {
      type: 'typing',
      op: input.op,
      message_type: 'direct',
      sender: person(sender),
      recipients: users.map(person),
    },
    users.filter(receivesTyping).map((u) => u.id),
  );
}
