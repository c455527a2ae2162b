/**
 * Topic names: the empty topic ("general chat", FL 334), its legacy and
 * display-name spellings, resolved topics, and Zulip's topic truncation.
 */

/** Prefix Zulip puts in front of resolved topics. */
export const RESOLVED_TOPIC_PREFIX = '\u2714 ';

/** Legacy name clients send for "no topic". */
export const NO_TOPIC = '(no topic)';

export const isResolvedTopic = (topic: string): boolean => topic.startsWith(RESOLVED_TOPIC_PREFIX);

/** Whether renaming `from` to `to` only resolves or unresolves the topic. */
export const isResolveOrUnresolve = (from: string, to: string): boolean =>
  to === RESOLVED_TOPIC_PREFIX + from || from === RESOLVED_TOPIC_PREFIX + to;

/**
 * What a client-sent topic means: `(no topic)` and the organization's
 * empty-topic display name stand for the empty topic (spec §1.4).
 * Surrounding whitespace is dropped, as Zulip does.
 */
export function normalizeTopic(topic: string, emptyTopicDisplayName: string): string {
  const t = topic.trim();
  if (t === NO_TOPIC || t === emptyTopicDisplayName) return '';
  return t;
}

/** Truncates to `max` code points with "..." as Zulip's truncate_topic does. */
export function truncateTopic(topic: string, max: number): string {
  const cps = [...topic];
  if (cps.length <= max) return topic;
  return cps.slice(0, max - 3).join('') + '...';
}

/** Truncates message content the way Zulip's normalize_body does. */
export function truncateContent(content: string, max: number): string {
  const cps = [...content];
  if (cps.length <= max) return content;
  const suffix = '\n[message truncated]';
  return cps.slice(0, max - [...suffix].length).join('') + suffix;
}

/** The topic name shown to clients that do not understand the empty topic. */
export function displayTopic(topic: string, allowEmpty: boolean, emptyTopicDisplayName: string): string {
  return topic === '' && !allowEmpty ? emptyTopicDisplayName : topic;
}
