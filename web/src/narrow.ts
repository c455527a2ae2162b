/**
 * Zulip's narrow syntax: parsing the search box (`channel:general topic:"a b"
 * -is:starred free text`), turning narrows into the operator list the API
 * takes, and deciding locally whether a new message belongs to a narrow (when
 * that cannot be known here — free text, has: — the list asks the server).
 */

export interface Term {
  operator: string;
  operand: string | number | number[];
  negated?: boolean;
}

/**
 * A conversation: a channel's topic, or a direct-message conversation by its
 * key (`Model.dmKey`: the other people's IDs, sorted; one's own ID for a
 * conversation with oneself).
 */
export interface Place {
  kind: 'stream' | 'dm';
  streamId?: number;
  topic?: string;
  dmKey?: string;
}

/** A conversation's key: topics compare without case, as the server's do. */
export function placeKey(p: Place): string {
  return p.kind === 'stream' ? `${p.streamId}:${(p.topic ?? '').toLowerCase()}` : `dm:${p.dmKey}`;
}

/** A conversation's narrow. */
export function placeTerms(p: Place): Term[] {
  if (p.kind === 'stream') {
    return [
      { operator: 'channel', operand: p.streamId! },
      { operator: 'topic', operand: p.topic ?? '' },
    ];
  }
  return [{ operator: 'dm', operand: (p.dmKey ?? '').split(',').map(Number) }];
}

/** A term's type as Zulip's filter names it: "not-" when negated, the operator, and for is, has, in and channels the operand too ("is-dm"). */
function termType(t: Term): string {
  return (t.negated ? 'not-' : '') + t.operator + (['is', 'has', 'in', 'channels'].includes(t.operator) ? `-${String(t.operand)}` : '');
}

/** Older names of operators (in old links and typed searches), by the names Zulip's filter gives them now (its canonicalize_operator). */
const OPERATOR_NAMES: Record<string, string> = { stream: 'channel', streams: 'channels', subject: 'topic', 'pm-with': 'dm', 'group-pm-with': 'dm-including', from: 'sender' };

/** An operator by its name now. */
function canonicalOperator(operator: string): string {
  const op = operator.toLowerCase();
  return OPERATOR_NAMES[op] ?? op;
}

/** An operand of `is` and `has` by its name now (is:private is is:dm; has:images is has:image), as Zulip's canonicalize_term. */
function canonicalOperand(operator: string, operand: string): string {
  if (operator === 'is') return operand.toLowerCase() === 'private' ? 'dm' : operand.toLowerCase();
  if (operator === 'has') return operand.toLowerCase().replace(/s$/, '');
  return operand;
}

/**
 * The views that show every message of each conversation they show, where
 * messages seen are marked read (Zulip's can_mark_messages_read): All
 * messages, a channel, a topic, direct messages, resolved topics. Starred
 * messages, Mentions, Reactions, a search and the like show a few messages
 * out of their conversations and mark nothing read. By their terms' types,
 * sorted ("with" and "near" are not among a list's terms; a list opened at
 * a `near` link marks nothing read: MessageList.nearLink).
 */
const READING_VIEWS = new Set(['', 'channel', 'channel,topic', 'dm', 'is-dm', 'not-is-dm', 'is-resolved', 'in-home', 'in-all', 'not-is-muted']);
/** Conversation views: a topic, a direct-message conversation (Zulip's is_conversation_view). */
const CONVERSATION_VIEWS = new Set(['channel,topic', 'dm']);

/** Whether the narrow is one of the views above. */
export function showsWholeConversations(terms: Term[]): boolean {
  return READING_VIEWS.has(terms.map(termType).sort().join(','));
}

export function isConversationView(terms: Term[]): boolean {
  return CONVERSATION_VIEWS.has(terms.map(termType).sort().join(','));
}

/**
 * Whether a view opens at its first unread message (Zulip's
 * allow_use_first_unread_when_narrowing): the views above, and those of an
 * "is:" kind but Starred messages (Mentions, say); else at the newest.
 */
export function opensAtFirstUnread(terms: Term[]): boolean {
  return showsWholeConversations(terms) || (terms.some((t) => t.operator === 'is') && !terms.some((t) => t.operator === 'is' && t.operand === 'starred'));
}

/**
 * Whether the view leaves out messages of muted topics (Zulip's
 * excludes_muted_topics): every view but a topic, a search, direct
 * messages, Starred messages, -in:home and is:muted.
 */
export function excludesMutedTopics(terms: Term[]): boolean {
  const has = (operator: string, operand?: string, negated = false) =>
    terms.some((t) => t.operator === operator && (operand === undefined || t.operand === operand) && (operator === 'search' || !!t.negated === negated));
  return !(has('channel') && has('topic')) && !has('search') && !has('dm') && !has('is', 'dm') && !has('is', 'starred') && !has('in', 'home', true) && !has('is', 'muted');
}

/** A link's term naming the message it opens at (`near`, or Zulip's newer `with`); not among a list's terms. */
export const isLinkTerm = (t: Term): boolean => t.operator === 'near' || t.operator === 'with';

/** Zulip's address of the Reactions view. */
export const REACTIONS_HASH = '#narrow/has/reaction/sender/me';

/** Zulip's Reactions view: the user's own messages that have reactions (Zulip's address for it says "sender/me"). */
export function reactionsTerms(me: number): Term[] {
  return [
    { operator: 'has', operand: 'reaction' },
    { operator: 'sender', operand: me },
  ];
}

export function parseSearch(input: string): Term[] {
  const terms: Term[] = [];
  const words: string[] = [];
  const re = /(-?)([a-z-]+):(?:"([^"]*)"|(\S+))|"([^"]*)"|(\S+)/gi;
  let m: RegExpExecArray | null;
  while ((m = re.exec(input))) {
    if (m[2]) {
      const operator = canonicalOperator(m[2]);
      const operand = canonicalOperand(operator, m[3] ?? m[4] ?? '');
      terms.push({ operator, operand, negated: m[1] === '-' });
    } else {
      // (A quoted phrase keeps its quotes: the server finds its words together, as Zulip's.)
      words.push(m[5] !== undefined ? (m[5] ? `"${m[5]}"` : '') : (m[6] ?? ''));
    }
  }
  const text = words.filter(Boolean).join(' ');
  if (text) terms.push({ operator: 'search', operand: text });
  return terms;
}

export function quoteOperand(s: string): string {
  return /\s/.test(s) ? `"${s}"` : s;
}

/** The search-box text for a narrow (channel ids shown as names). */
export function describeTerms(terms: Term[], streamName: (id: number) => string | undefined, userEmail: (id: number) => string | undefined): string {
  return terms
    .map((t) => {
      let operand: string;
      if (t.operator === 'search') return String(t.operand);
      if (t.operator === 'channel' && typeof t.operand === 'number') operand = streamName(t.operand) ?? String(t.operand);
      else if (t.operator === 'dm' && Array.isArray(t.operand)) operand = t.operand.map((id) => userEmail(id) ?? id).join(',');
      else if (t.operator === 'sender' && typeof t.operand === 'number') operand = userEmail(t.operand) ?? String(t.operand);
      else operand = String(t.operand);
      return `${t.negated ? '-' : ''}${t.operator}:${quoteOperand(operand)}`;
    })
    .join(' ');
}

export interface LocalMessage {
  id: number;
  type: 'stream' | 'private';
  stream_id?: number;
  subject: string;
  sender_id: number;
  sender_email: string;
  display_recipient: string | { id: number; email: string }[];
  flags: string[];
}

export interface MatchContext {
  myId: number;
  streamIdByName(name: string): number | undefined;
  userIdByEmail(email: string): number | undefined;
}

/** true/false when it can be decided here; null when only the server knows. */
export function matches(terms: Term[], msg: LocalMessage, ctx: MatchContext): boolean | null {
  let unknown = false;
  for (const t of terms) {
    const r = matchTerm(t, msg, ctx);
    if (r === null) {
      unknown = true;
      continue;
    }
    if (r === !!t.negated) return false;
  }
  return unknown ? null : true;
}

function dmParticipants(msg: LocalMessage): number[] {
  return Array.isArray(msg.display_recipient) ? msg.display_recipient.map((r) => r.id) : [];
}

function idsOf(operand: Term['operand'], ctx: MatchContext): number[] | null {
  if (Array.isArray(operand)) return operand;
  if (typeof operand === 'number') return [operand];
  const ids: number[] = [];
  for (const part of operand.split(',')) {
    const p = part.trim();
    if (!p) continue;
    const id = /^\d+$/.test(p) ? Number(p) : ctx.userIdByEmail(p);
    if (id === undefined) return null;
    ids.push(id);
  }
  return ids;
}

function matchTerm(t: Term, msg: LocalMessage, ctx: MatchContext): boolean | null {
  const operand = t.operand;
  switch (t.operator) {
    case 'channel': {
      const id = typeof operand === 'number' ? operand : /^\d+$/.test(String(operand)) ? Number(operand) : ctx.streamIdByName(String(operand));
      if (id === undefined) return null;
      return msg.type === 'stream' && msg.stream_id === id;
    }
    case 'topic':
      return msg.type === 'stream' && msg.subject.toLowerCase() === String(operand).toLowerCase();
    case 'sender': {
      if (typeof operand === 'number') return msg.sender_id === operand;
      const s = String(operand);
      if (s === 'me') return msg.sender_id === ctx.myId;
      return msg.sender_email.toLowerCase() === s.toLowerCase() || String(msg.sender_id) === s;
    }
    case 'dm': {
      if (msg.type !== 'private') return false;
      const ids = idsOf(operand, ctx);
      if (!ids) return null;
      const want = new Set([...ids, ctx.myId]);
      const have = new Set(dmParticipants(msg));
      if (have.size === 0) have.add(ctx.myId);
      if (want.size !== have.size) return false;
      for (const id of want) if (!have.has(id)) return false;
      return true;
    }
    case 'dm-including': {
      if (msg.type !== 'private') return false;
      const ids = idsOf(operand, ctx);
      if (!ids) return null;
      const have = new Set(dmParticipants(msg));
      return ids.every((id) => have.has(id));
    }
    case 'is':
      switch (String(operand)) {
        case 'dm':
          return msg.type === 'private';
        case 'starred':
          return msg.flags.includes('starred');
        case 'mentioned':
          return msg.flags.some((f) => f === 'mentioned' || f === 'stream_wildcard_mentioned' || f === 'topic_wildcard_mentioned' || f === 'wildcard_mentioned');
        case 'unread':
          return !msg.flags.includes('read');
        case 'alerted':
          return msg.flags.includes('has_alert_word');
        case 'resolved':
          return msg.type === 'stream' && msg.subject.startsWith('✔ ');
        default:
          return null;
      }
    case 'id':
      return msg.id === Number(operand);
    default:
      return null;
  }
}

/** Zulip's encoding of a part of a narrow link (encodeHashComponent): percent-encoding with `.` for `%` (`.28`, `.29` and `.2E` for `(`, `)` and `.`). */
function encodeHashPart(s: string): string {
  return encodeURIComponent(s)
    .replace(/[().]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%/g, '.');
}

function decodeHashPart(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\.([0-9A-Fa-f]{2})/g, '%$1'));
  } catch {
    return s;
  }
}

/** Route hash for a narrow, as Zulip writes them: #narrow/channel/12/topic/hello.20world */
export function narrowToHash(terms: Term[]): string {
  if (!terms.length) return '#feed';
  return (
    '#narrow/' +
    terms
      .map((t) => {
        const operand = Array.isArray(t.operand) ? t.operand.join(',') : String(t.operand);
        return `${t.negated ? '-' : ''}${encodeHashPart(t.operator)}/${encodeHashPart(operand)}`;
      })
      .join('/')
  );
}

/** A channel's link, as Zulip's web app makes it: #narrow/channel/12-general. */
export function channelLinkHash(id: number, name: string): string {
  return `#narrow/channel/${channelSlug(id, name)}`;
}

/** A topic's link, as Zulip's web app makes it: #narrow/channel/12-general/topic/hello.20world. */
export function topicLinkHash(id: number, name: string, topic: string): string {
  return `${channelLinkHash(id, name)}/topic/${encodeHashPart(topic)}`;
}

/**
 * A topic's permalink, as Zulip's web app copies one: its link with the
 * topic's latest message (`/with/<id>`), which the link follows if the
 * topic is renamed or moved.
 */
export function topicPermalinkHash(id: number, name: string, topic: string, latestId: number): string {
  return `${topicLinkHash(id, name, topic)}/with/${latestId}`;
}

/** The address of a channel's list of topics (Zulip's "List of topics" view): #topics/channel/12-general. */
export function topicsListHash(id: number, name: string): string {
  return `#topics/channel/${channelSlug(id, name)}`;
}

/** The channel whose list of topics an address shows (#topics/channel/<id>, a name after the ID or not), if it shows one. */
export function topicsListChannel(hash: string): number | null {
  const m = /^#topics\/channel\/(\d+)(?:-[^/]*)?\/?$/.exec(hash);
  return m ? Number(m[1]) : null;
}

/** The address of a channel's settings, as Zulip's web app writes it: #channels/<id>/<name>/general (or another part of them). */
export function channelSettingsHash(id: number, name: string, part: 'general' | 'personal' | 'subscribers' = 'general'): string {
  return `#channels/${id}/${slugName(name)}/${part}`;
}

/** A channel as Zulip's links name it: "<id>-<name>", spaces as dashes. */
function channelSlug(id: number, name: string): string {
  return `${id}-${slugName(name)}`;
}

/** A channel's name as its links write it: spaces as dashes, encoded. */
function slugName(name: string): string {
  return encodeHashPart(name.replace(/ /g, '-'));
}

/**
 * A message's permanent link, as Zulip's web app makes it:
 * #narrow/channel/12-general/topic/hello.20world/near/345, or
 * #narrow/dm/5,9-dm/near/345 (every participant's ID, "-group" for three or more).
 */
export function messageLinkHash(m: { id: number; type: string; stream_id?: number; subject: string; display_recipient: string | { id: number }[] }, channelName: string): string {
  if (m.type === 'stream') return `${topicLinkHash(m.stream_id!, channelName, m.subject)}/near/${m.id}`;
  const ids = Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id).sort((a, b) => a - b) : [];
  return `#narrow/dm/${ids.join(',')}-${ids.length >= 3 ? 'group' : 'dm'}/near/${m.id}`;
}

/**
 * The narrow of a route hash: ours, and the links Zulip's Markdown puts in
 * messages (#narrow/stream/12-general/topic/a.20b: the legacy operator name, a
 * channel as "<id>-<name>").
 */
export function hashToNarrow(hash: string): Term[] | null {
  if (!hash.startsWith('#narrow/')) return null;
  const parts = hash.slice('#narrow/'.length).split('/');
  const terms: Term[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    let operator = decodeHashPart(parts[i]!);
    const negated = operator.startsWith('-');
    if (negated) operator = operator.slice(1);
    operator = canonicalOperator(operator);
    const raw = canonicalOperand(operator, decodeHashPart(parts[i + 1]!));
    let operand: Term['operand'] = raw;
    const channelId = operator === 'channel' ? /^(\d+)(-|$)/.exec(raw) : null;
    if (channelId) operand = Number(channelId[1]);
    else if ((operator === 'id' || operator === 'near' || operator === 'with') && /^\d+$/.test(raw)) operand = Number(raw);
    // A person as Zulip's addresses write one: "<id>-<name>" (or the ID alone).
    else if ((operator === 'sender' || operator === 'dm-including') && /^\d+(-|$)/.test(raw)) operand = Number(raw.split('-')[0]);
    else if (operator === 'dm' && /^\d+(,\d+)*(-|$)/.test(raw)) operand = raw.split('-')[0]!.split(',').map(Number);
    terms.push({ operator, operand, negated });
  }
  return terms;
}

export function sameNarrow(a: Term[], b: Term[]): boolean {
  return narrowToHash(a) === narrowToHash(b);
}
