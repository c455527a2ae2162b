/**
 * Links to a channel, a topic or a message in a topic, as Zulip's web app
 * writes them in a message (topic_link_util): `#**channel**`,
 * `#**channel>topic**`, `#**channel>topic@id**`; where a name holds a
 * character that would break that syntax (`` ` `` `>` `*` `&` `[` `]` `$$`),
 * a plain Markdown link to the narrow instead, those characters written as
 * HTML entities: `[#Sw&#42;den > topic](#narrow/channel/7-Sw*den/topic/topic)`.
 */
import { model } from './model.ts';
import { channelLinkHash, topicLinkHash } from './narrow.ts';

const BREAKS_LINK_SYNTAX = /[`>*&[\]]|\$\$/g;
const ESCAPES: Record<string, string> = { '`': '&#96;', '>': '&gt;', '*': '&#42;', '&': '&amp;', '$$': '&#36;&#36;', '[': '&#91;', ']': '&#93;' };

/** Whether a channel or topic name cannot be written in `#**…**` link syntax (Zulip's will_produce_broken_stream_topic_link). */
export function breaksLinkSyntax(name: string): boolean {
  return name.search(BREAKS_LINK_SYNTAX) >= 0;
}

/** A name as the fallback link's words write it (Zulip's html_escape_markdown_syntax_characters). */
const escape = (s: string) => s.replace(BREAKS_LINK_SYNTAX, (c) => ESCAPES[c] ?? c);

/** The name again from the fallback link's words (Zulip's html_unescape_invalid_stream_topic_characters). */
export function unescapeLinkName(s: string): string {
  return s.replace(/&#96;|&gt;|&#42;|&amp;|&#36;&#36;|&#91;|&#93;/g, (e) => Object.keys(ESCAPES).find((k) => ESCAPES[k] === e) ?? e);
}

/** Zulip's get_fallback_markdown_link. */
export function fallbackLink(stream: { stream_id: number; name: string }, topic?: string, messageId?: number): string {
  if (topic === undefined) return `[#${escape(stream.name)}](${channelLinkHash(stream.stream_id, stream.name)})`;
  const text = `#${escape(stream.name)} > ${escape(topic === '' ? model.generalChatName() : topic)}`;
  const url = topicLinkHash(stream.stream_id, stream.name, topic);
  return messageId === undefined ? `[${text}](${url})` : `[${text} @ \u{1F4AC}](${url}/near/${messageId})`;
}

/** `#**channel**`, or the fallback link. */
export function channelLinkSyntax(stream: { stream_id: number; name: string }): string {
  return breaksLinkSyntax(stream.name) ? fallbackLink(stream) : `#**${stream.name}**`;
}

/** `#**channel>topic**`, or the fallback link. */
export function topicLinkSyntax(stream: { stream_id: number; name: string }, topic: string): string {
  return breaksLinkSyntax(stream.name) || breaksLinkSyntax(topic) ? fallbackLink(stream, topic) : `#**${stream.name}>${topic}**`;
}

/** `#**channel>topic@id**`, or the fallback link. */
export function messageLinkSyntax(stream: { stream_id: number; name: string }, topic: string, messageId: number): string {
  return breaksLinkSyntax(stream.name) || breaksLinkSyntax(topic) ? fallbackLink(stream, topic, messageId) : `#**${stream.name}>${topic}@${messageId}**`;
}
