/** Links to a conversation in the web app, as Zulip writes them (message_link_url and its parts). */

/** Zulip's URL fragment encoding (hash_util_encode). */
export function hashEncode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
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
