/**
 * Desktop notifications for new messages, by the user's settings as Zulip
 * applies them: direct messages, mentions and alert words
 * (`enable_desktop_notifications`); wildcard mentions (also
 * `wildcard_mentions_notify`, or the subscription's own); followed topics
 * (`enable_followed_topic_desktop_notifications`); channels
 * (the subscription's `desktop_notifications`, else
 * `enable_stream_desktop_notifications`). Muted channels and topics notify
 * only of personal mentions. Shown only while the page is not in front, and
 * only once the browser allows it (Settings asks).
 */
import { model, type Message } from './model.ts';
import { narrowToHash, type Term } from './narrow.ts';

export function wantsNotification(m: Message): boolean {
  // Read on arrival: the user's own (from another client) and muted senders' (the server marks them read).
  if (m.sender_id === model.me.user_id || m.flags.includes('read')) return false;
  const s = model.settings;
  const personal = s.enable_desktop_notifications !== false;
  if (m.type === 'private') return personal;
  if (m.flags.includes('mentioned') || m.flags.includes('has_alert_word')) return personal;
  if (model.isMuted(m)) return false;
  const sub = m.stream_id === undefined ? undefined : model.subs.get(m.stream_id);
  if (!sub) return false;
  const wildcard = m.flags.includes('stream_wildcard_mentioned') || m.flags.includes('topic_wildcard_mentioned');
  if (wildcard && personal && (sub.wildcard_mentions_notify ?? s.wildcard_mentions_notify !== false)) return true;
  if (model.isTopicFollowed(sub.stream_id, m.subject) && s.enable_followed_topic_desktop_notifications !== false) return true;
  return sub.desktop_notifications ?? !!s.enable_stream_desktop_notifications;
}

/** The message's text without its HTML, shortened. */
function plainText(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const text = (doc.body.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text.length > 150 ? `${text.slice(0, 149)}…` : text;
}

function conversation(m: Message): Term[] {
  if (m.type === 'private' && Array.isArray(m.display_recipient)) return [{ operator: 'dm', operand: m.display_recipient.map((r) => r.id).filter((id) => id !== model.me.user_id) }];
  return [
    { operator: 'channel', operand: m.stream_id! },
    { operator: 'topic', operand: m.subject },
  ];
}

/** Shows a desktop notification for `m` when the user wants one and is not looking at the page. */
export function notifyIfWanted(m: Message): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  if (!document.hidden && document.hasFocus()) return;
  if (!wantsNotification(m)) return;
  const where = m.type === 'private' ? (Array.isArray(m.display_recipient) && m.display_recipient.length > 2 ? ' (group)' : '') : ` (#${model.streamName(m.stream_id)} › ${m.subject})`;
  const terms = conversation(m);
  let n: Notification;
  try {
    n = new Notification(`${m.sender_full_name}${where}`, { body: plainText(m.content), tag: narrowToHash(terms) });
  } catch {
    // Some browsers (Chrome on Android) allow notifications from a service worker only.
    return;
  }
  n.onclick = () => {
    window.focus();
    location.hash = narrowToHash(terms);
    n.close();
  };
}
