/** Links to a conversation in the web app, as Zulip writes them (message_link_url and its parts). */

/** Zulip's URL fragment encoding (encode_hash_component): percent-encoding, `*` kept, then `.` for `%` and `.2E` for `.`. */
export function hashEncode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/\./g, '%2E')
    .replace(/%/g, '.');
}

/** The narrow of a channel topic: `/#narrow/channel/<id>-<name>/topic/<topic>`. */
export function topicNarrowUrl(base: string, stream: { id: number; name: string }, topic: string): string {
  return `${base.replace(/\/$/, '')}/#narrow/channel/${stream.id}-${hashEncode(stream.name.replace(/ /g, '-'))}/topic/${hashEncode(topic)}`;
}

/** A channel message: its topic's narrow, near the message. */
export function channelMessageUrl(base: string, stream: { id: number; name: string }, topic: string, messageId: number): string {
  return `${topicNarrowUrl(base, stream, topic)}/near/${messageId}`;
}

/** The narrow of a direct-message conversation (all participants' IDs). */
export function dmNarrowUrl(base: string, userIds: number[]): string {
  const slug = `${[...userIds].sort((a, b) => a - b).join(',')}-${userIds.length >= 3 ? 'group' : 'dm'}`;
  return `${base.replace(/\/$/, '')}/#narrow/dm/${slug}`;
}

/** Zulip's pm_message_url: the conversation's narrow, near the message. */
export function dmMessageUrl(base: string, userIds: number[], messageId: number): string {
  return `${dmNarrowUrl(base, userIds)}/near/${messageId}`;
}

/** Characters that break `#**channel>topic**` link syntax (Zulip's invalid_stream_topic_regex). */
const BREAKS_LINK_SYNTAX = /[`>*&[\]]|\$\$/g;
const LINK_TEXT_ESCAPES: Record<string, string> = { '`': '&#96;', '>': '&gt;', '*': '&#42;', '&': '&amp;', '$$': '&#36;&#36;', '[': '&#91;', ']': '&#93;' };

/** Whether a channel or topic name cannot be written in `#**...**` link syntax (Zulip's will_produce_broken_stream_topic_link). */
export function breaksLinkSyntax(name: string): boolean {
  return name.search(BREAKS_LINK_SYNTAX) >= 0;
}

/**
 * Zulip's get_fallback_markdown_link: a plain Markdown link to a channel, a
 * topic or a message in it, for names the link syntax cannot hold; the
 * names' troublesome characters written as HTML entities.
 */
function fallbackLink(stream: { id: number; name: string }, topic?: string, messageId?: number): string {
  const escape = (s: string) => s.replace(BREAKS_LINK_SYNTAX, (c) => LINK_TEXT_ESCAPES[c] ?? c);
  let url = `#narrow/channel/${stream.id}-${hashEncode(stream.name.replace(/ /g, '-'))}`;
  let text = `#${escape(stream.name)}`;
  if (topic !== undefined) {
    url += `/topic/${hashEncode(topic)}`;
    text += ` > ${escape(topic === '' ? 'general chat' : topic)}`;
  }
  if (messageId !== undefined) {
    url += `/near/${messageId}`;
    text += ' @ \u{1F4AC}';
  }
  return `[${text}](${url})`;
}

/** Zulip's get_stream_link_syntax: `#**channel**`, or a Markdown link where the name would break it. */
export function channelLinkSyntax(stream: { id: number; name: string }): string {
  return breaksLinkSyntax(stream.name) ? fallbackLink(stream) : `#**${stream.name}**`;
}

/** Zulip's get_stream_topic_link_syntax: `#**channel>topic**`, or a Markdown link. */
export function topicLinkSyntax(stream: { id: number; name: string }, topic: string): string {
  return breaksLinkSyntax(stream.name) || breaksLinkSyntax(topic) ? fallbackLink(stream, topic) : `#**${stream.name}>${topic}**`;
}

/** Zulip's get_message_link_syntax: `#**channel>topic@id**`, or a Markdown link. */
export function messageLinkSyntax(stream: { id: number; name: string }, topic: string, messageId: number): string {
  return breaksLinkSyntax(stream.name) || breaksLinkSyntax(topic) ? fallbackLink(stream, topic, messageId) : `#**${stream.name}>${topic}@${messageId}**`;
}
