/**
 * What a view with no messages says, as Zulip's web app does (its
 * pick_empty_narrow_banner): a title, maybe a line under it, maybe a link,
 * and maybe its "Why not start the conversation?", which opens the compose
 * box where the view is (its channel and topic, or its direct-message
 * conversation).
 */
import { model, type MessageList } from './model.ts';
import type { Term } from './narrow.ts';

export interface EmptyView {
  title: string;
  text?: string;
  /** A line with a link in it: the words before it, its words and address, the words after it. */
  link?: { before: string; text: string; href: string; after: string };
  /** "Why not start the conversation?": a channel message or a direct message. */
  start?: 'stream' | 'dm';
  /** The view names a channel or person the user cannot see: said instead of the server's refusal of the view. */
  invalid?: true;
}

const NO_RESULTS = 'No search results.';
const NO_RESULTS_IN_HISTORY = 'No search results from your message history.';
const NO_CHANNEL = "This channel doesn't exist, or you are not allowed to view it.";

const DEFAULT: EmptyView = { title: 'There are no messages here.', start: 'stream' };

/** A channel term's channel ID (by ID, or by name), if the client knows it. */
function channelOf(t: Term): number | undefined {
  if (typeof t.operand === 'number') return t.operand;
  const s = String(t.operand);
  return /^\d+$/.test(s) ? Number(s) : model.matchContext().streamIdByName(s);
}

/** A user term's user IDs (IDs or email addresses), or null where one is unknown. */
function usersOf(t: Term): number[] | null {
  const ctx = model.matchContext();
  const parts = Array.isArray(t.operand) ? t.operand : typeof t.operand === 'number' ? [t.operand] : t.operand.split(',').filter((p) => p.trim());
  const ids: number[] = [];
  for (const p of parts) {
    const s = String(p).trim();
    const id = s === 'me' ? ctx.myId : /^\d+$/.test(s) ? Number(s) : ctx.userIdByEmail(s);
    if (id === undefined || !model.users.has(id)) return null;
    ids.push(id);
  }
  return ids;
}

const inactive = (id: number) => model.users.get(id)?.is_active === false;

function channelView(streamId: number | undefined, list: MessageList): EmptyView {
  const channel = streamId === undefined ? undefined : model.streams.get(streamId);
  if (streamId === undefined || !model.subs.has(streamId)) {
    if (channel && model.mayJoin(streamId!)) return DEFAULT;
    if (channel?.invite_only) return { title: 'You are not allowed to view messages in this private channel.' };
    return { title: NO_CHANNEL, invalid: true };
  }
  // Messages there, all in muted topics.
  if (list.messages.length > 0) {
    return { title: 'You have muted all the topics in this channel.', text: 'To view a muted topic, click All topics under the channel in the left sidebar, and select one from the list.' };
  }
  return DEFAULT;
}

/** For a user term naming someone the client does not know: Zulip's words, for one person or several. */
function unknownUsers(t: Term): EmptyView {
  const many = Array.isArray(t.operand) ? t.operand.length > 1 : String(t.operand).includes(',');
  return { title: many ? 'One or more of these users do not exist!' : 'This user does not exist!', invalid: true };
}

function dmView(t: Term): EmptyView {
  const ids = usersOf(t);
  if (!ids || ids.length === 0) return unknownUsers(t);
  const refusal = model.directMessageRefusal(ids);
  if (refusal) return { title: refusal };
  const me = model.me.user_id;
  if (ids.length === 1) {
    const id = ids[0]!;
    if (id === me) return { title: "You haven't sent yourself any notes yet!", text: 'Use this space for personal notes, or to try things out.' };
    if (inactive(id)) return { title: `You have no direct messages with ${model.userName(id)}.` };
    return { title: `You have no direct messages with ${model.userName(id)} yet.`, start: 'dm' };
  }
  if (ids.some(inactive)) return { title: 'You have no direct messages with these users.' };
  return { title: 'You have no direct messages with these users yet.', start: 'dm' };
}

export function emptyView(list: MessageList): EmptyView {
  const terms = list.terms;
  if (terms.length === 0) {
    return { title: 'There are no messages in your combined feed.', link: { before: 'Would you like to ', text: 'view messages in all public channels', href: '#narrow/channels/public', after: '?' } };
  }
  const of = (op: string) => terms.filter((t) => t.operator === op && !t.negated);
  if (terms.length > 1) {
    if (of('channel').length > 1) return { title: NO_RESULTS, text: 'You are searching for messages that belong to more than one channel, which is not possible.' };
    if (of('topic').length > 1) return { title: NO_RESULTS, text: 'You are searching for messages that belong to more than one topic, which is not possible.' };
    if (of('sender').length > 1) return { title: NO_RESULTS, text: 'You are searching for messages that are sent by more than one person, which is not possible.' };
    if (of('search').length > 0) return { title: NO_RESULTS };
    const channels = of('channel');
    if (channels.length === 1) {
      const id = channelOf(channels[0]!);
      if (id === undefined || !model.streams.has(id)) return { title: NO_CHANNEL, invalid: true };
    }
    if (terms.length === 2 && channels.length === 1 && of('topic').length === 1) return DEFAULT;
    const sender = of('sender')[0];
    if (terms.length === 2 && sender && of('has').some((t) => t.operand === 'reaction') && usersOf(sender)?.[0] === model.me.user_id) {
      return { title: 'None of your messages have emoji reactions yet.' };
    }
    return { title: NO_RESULTS };
  }
  const t = terms[0]!;
  if (t.negated) return DEFAULT;
  switch (t.operator) {
    case 'is':
      switch (String(t.operand)) {
        case 'starred':
          return { title: 'You have no starred messages.', text: 'Starring messages is a good way to keep track of important messages, such as tasks you need to go back to, or useful references. To star a message, hover over it and click the star.' };
        case 'mentioned':
          return {
            title: 'This view will show messages where you are mentioned.',
            text: "To call attention to a message, you can mention a user, a group, topic participants, or all subscribers to a channel. Type @ in the compose box, and choose who you'd like to mention from the list of suggestions.",
          };
        case 'dm':
          return { title: 'You have no direct messages yet!', start: 'dm' };
        case 'unread':
          return { title: 'You have no unread messages!' };
        case 'resolved':
          return { title: 'No topics in your message history are marked as resolved.' };
        case 'followed':
          return { title: "You aren't following any topics." };
        case 'muted':
          return { title: 'You have no messages in muted topics and channels.' };
        case 'alerted':
          return { title: NO_RESULTS_IN_HISTORY };
      }
      return DEFAULT;
    case 'channel':
      return channelView(channelOf(t), list);
    case 'channels':
      return { title: 'There are no messages here.' };
    case 'search':
      return { title: NO_RESULTS };
    case 'dm':
      return dmView(t);
    case 'sender': {
      const id = usersOf(t)?.[0];
      if (id === undefined) return { title: "This user doesn't exist, or you are not allowed to view any of their messages.", invalid: true };
      return { title: `You haven't received any messages sent by ${model.userName(id)} yet.` };
    }
    case 'dm-including': {
      const ids = usersOf(t);
      if (!ids || ids.length === 0) return unknownUsers(t);
      const refusal = model.directMessageRefusal(ids);
      if (refusal) return { title: refusal };
      if (ids.length === 1 && ids[0] === model.me.user_id) return { title: "You don't have any direct message conversations yet." };
      return { title: `You have no direct messages including ${ids.map((id) => model.userName(id)).join(', ')} yet.` };
    }
    case 'has':
      return { title: NO_RESULTS_IN_HISTORY };
  }
  return DEFAULT;
}
