/**
 * GET /users/me/{stream_id}/topics (Zulip's get_topic_history_for_stream)
 * and GET /streams/{stream_id}/email_address.
 */
import { cachedGroups, cachedStreams } from './cache.ts';
import { spectatorAccessEnabled } from './users-read.ts';
import { randomBytes } from 'node:crypto';
import type { Services } from '../services.ts';
import { transaction } from '../store/db.ts';
import { badRequest, unauthorized } from '../lib/errors.ts';
import { nowSeconds } from '../lib/util.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { displayTopic } from '../lib/topic.ts';
import { realmById } from '../store/realm.ts';
import type { UserRow } from '../store/users.ts';
import { channelEmailToken, insertChannelEmailToken, topicHistoryRows } from '../store/channel-extras.ts';
import { accessStreamById, canPost, canReadFullHistory, readableBySpectators } from './access.ts';
import { accessBotById } from './bots.ts';
import { emailGatewayBot } from './system-bots.ts';

/**
 * The channel's topics the user can read, newest first: all of them when the
 * user may read the channel's full history, otherwise those of messages the
 * user received. Topic names differing only in case are one topic, shown in
 * its most recent spelling, with the newest message ID of that spelling.
 * A spectator (`user` null) reads a web-public channel's (Zulip's
 * access_web_public_stream), where the organization allows spectators.
 */
export async function getChannelTopics(svc: Services, user: UserRow | null, streamId: number, allowEmptyTopicName: boolean): Promise<{ topics: Array<{ name: string; max_id: number }> }> {
  const db = svc.store.db;
  let onlyReceivedBy: number | undefined;
  if (user) {
    const access = await accessStreamById(svc, db, user, streamId);
    // Zulip's access_stream_by_id: without content access the channel does not exist.
    if (!access.content) throw badRequest('Invalid channel ID');
    if (!canReadFullHistory(access)) onlyReceivedBy = user.id;
  } else {
    if (!(await spectatorAccessEnabled(svc))) throw unauthorized();
    const stream = (await cachedStreams(svc, db)).byId.get(streamId);
    if (!stream || !readableBySpectators(stream)) throw badRequest('Invalid channel ID');
  }
  const rows = await topicHistoryRows(db, svc.realmId, streamId, onlyReceivedBy);
  const emptyName = String(realmSettings((await realmById(db, svc.realmId)).settings_json).empty_topic_display_name);
  // Oldest first, so the most recent spelling of a topic wins.
  const canonical = new Map<string, { name: string; max_id: number }>();
  for (const r of [...rows].sort((a, b) => a.max_id - b.max_id)) canonical.set(r.topic.toLowerCase(), { name: r.topic, max_id: r.max_id });
  const topics = [...canonical.values()]
    .map((t) => ({ name: displayTopic(t.name, allowEmptyTopicName, emptyName), max_id: t.max_id }))
    .sort((a, b) => b.max_id - a.max_id);
  return { topics };
}

/** Zulip's encode_email_address: the channel name made address-safe, the token, the show-sender flag. */
export function encodeChannelEmail(pattern: string, name: string, token: string): string {
  if (pattern === '') return '';
  const encodedName = name.replace(/[^\p{L}\p{N}_]+/gu, '-').toLowerCase().replace(/^-+|-+$/g, '');
  const local = `${encodedName ? `${encodedName}.` : ''}${token}.show-sender`;
  return pattern.replace('%s', local);
}

/**
 * A channel's incoming-email address, for the calling user and a sender
 * (the Email Gateway bot by default, the user, or one of their bots). Only
 * users who may post to the channel get it (Zulip FL 448). The token is kept,
 * so the same request always gives the same address.
 */
export async function getChannelEmailAddress(svc: Services, user: UserRow, streamId: number, senderId: number | undefined): Promise<{ email: string }> {
  const db = svc.store.db;
  const groups = await cachedGroups(svc, db);
  const access = await accessStreamById(svc, db, user, streamId, groups);
  if (!access.content || !canPost(user, access, groups)) throw badRequest('You do not have permission to post in this channel.');
  const gateway = await emailGatewayBot(svc);
  let sender: UserRow;
  if (senderId === undefined || senderId === gateway.id) sender = gateway;
  else if (senderId === user.id) sender = user;
  else sender = await accessBotById(svc, user, senderId);
  const token = await transaction(svc.store, async (tx) => {
    const existing = await channelEmailToken(tx, streamId, user.id, sender.id);
    if (existing) return existing;
    await insertChannelEmailToken(tx, { realmId: svc.realmId, streamId, creatorId: user.id, senderId: sender.id, token: randomBytes(16).toString('hex'), now: nowSeconds() });
    return (await channelEmailToken(tx, streamId, user.id, sender.id))!;
  });
  return { email: encodeChannelEmail(svc.config.emailGatewayPattern, access.stream.name, token) };
}
