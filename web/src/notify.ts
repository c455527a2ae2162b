/**
 * Desktop notifications and sounds for new messages, by the user's settings
 * as Zulip applies them (never for muted senders), each with its own settings: direct messages,
 * mentions and alert words (`enable_desktop_notifications`,
 * `enable_sounds`); wildcard mentions (also `wildcard_mentions_notify`, or
 * the subscription's own); followed topics
 * (`enable_followed_topic_desktop_notifications`, `..._audible_...`);
 * channels (the subscription's `desktop_notifications` or
 * `audible_notifications`, else `enable_stream_desktop_notifications` or
 * `enable_stream_audible_notifications`). Muted channels and topics notify
 * only of personal mentions. Both only while the page is not in front; a
 * notification only once the browser allows it (Settings asks), a sound
 * unless `notification_sound` is "none" (one sound, made here, whichever
 * Zulip sound is chosen).
 */
import { model, type Message } from './model.ts';
import { narrowToHash, type Term } from './narrow.ts';

type Kind = 'desktop' | 'audible';

/** The user's settings and the subscription's property for each kind. */
const SETTINGS = {
  desktop: { personal: 'enable_desktop_notifications', followed: 'enable_followed_topic_desktop_notifications', channels: 'enable_stream_desktop_notifications', sub: 'desktop_notifications' },
  audible: { personal: 'enable_sounds', followed: 'enable_followed_topic_audible_notifications', channels: 'enable_stream_audible_notifications', sub: 'audible_notifications' },
} as const;

export function wants(m: Message, kind: Kind): boolean {
  // Read on arrival: the user's own (from another client) and muted senders' (the server marks them read).
  if (m.sender_id === model.me.user_id || m.flags.includes('read') || model.isUserMuted(m.sender_id)) return false;
  const s = model.settings;
  const names = SETTINGS[kind];
  const personal = s[names.personal] !== false;
  if (m.type === 'private') return personal;
  if (m.flags.includes('mentioned') || m.flags.includes('has_alert_word')) return personal;
  if (model.isMuted(m)) return false;
  const sub = m.stream_id === undefined ? undefined : model.subs.get(m.stream_id);
  if (!sub) return false;
  const wildcard = m.flags.includes('stream_wildcard_mentioned') || m.flags.includes('topic_wildcard_mentioned');
  if (wildcard && personal && (sub.wildcard_mentions_notify ?? s.wildcard_mentions_notify !== false)) return true;
  if (model.isTopicFollowed(sub.stream_id, m.subject) && s[names.followed] !== false) return true;
  return sub[names.sub] ?? !!s[names.channels];
}

let audio: AudioContext | null = null;

/** A short two-note chime. Browsers play it once the page has had a click or key press. */
function chime(): void {
  try {
    audio ??= new AudioContext();
    void audio.resume().catch(() => {});
    const t = audio.currentTime;
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.type = 'sine';
    tone.frequency.setValueAtTime(880, t);
    tone.frequency.setValueAtTime(1320, t + 0.09);
    volume.gain.setValueAtTime(0.15, t);
    volume.gain.exponentialRampToValueAtTime(0.001, t + 0.35);
    tone.connect(volume).connect(audio.destination);
    tone.start(t);
    tone.stop(t + 0.35);
  } catch {
    // No audio in this browser.
  }
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

/** Plays the sound and shows a desktop notification for `m`, each when the user wants it and is not looking at the page. */
export function notifyIfWanted(m: Message): void {
  if (!document.hidden && document.hasFocus()) return;
  if (model.settings.notification_sound !== 'none' && wants(m, 'audible')) chime();
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  if (!wants(m, 'desktop')) return;
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
