import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ComponentChild, ComponentChildren, Ref } from 'preact';
import { api, ApiError } from '../api.ts';
import { subscribeUser } from './Channels.tsx';
import { joinChannel } from './ChannelPersonal.tsx';
import { DM_REFUSALS, model, type Draft } from '../model.ts';
import { matches, narrowToHash, placeKey, placeTerms, type LocalMessage, type Place, type Term } from '../narrow.ts';
import { discardDraft, draftFor, draftNarrow, draftSlot, draftTarget, saveDraft, takeRestore, targetKey, type DraftSlot, type DraftTarget } from '../drafts.ts';
import { codePoints, cx, fullTime, prepareHtml } from '../util.ts';
import type { QuoteTarget } from './MessageList.tsx';
import { useSuggestions, useTopicSuggestions } from './Typeahead.tsx';
import { InsertEmojiButton } from './Emoji.tsx';
import { SnippetPicker } from './Snippets.tsx';
import { formattingKey, listEnter, sendKeysHint, sendsMessage } from '../format-keys.ts';
import { FormatBar, FormattingToggle } from './FormatBar.tsx';
import { RemindersList, ScheduledList, ScheduleForm } from './Scheduled.tsx';
import { DraftsList } from './Drafts.tsx';
import { ErrorLine, useRequest } from './request.tsx';
import { UploadButton, useUploads } from './UploadBanners.tsx';
import { usePaste } from './Paste.tsx';
import { isResolved, messageOfTopic, moveTopic, unresolvedName } from './NarrowActions.tsx';

/** How long the box waits after the last change before saving its draft (ms). */
const DRAFT_DELAY = 1000;

export interface ComposeHandle {
  focus(mode: 'stream' | 'dm'): void;
  /** A new topic in a channel: the box set to it with no topic, the topic field focused. */
  newTopic(streamId: number): void;
  insertQuote(q: QuoteTarget): void;
  /** A direct message to these people: the box set to them, the text focused. */
  directMessage(userIds: number[]): void;
  /** A draft back in the box, in its conversation. */
  restore(d: Draft): void;
  /** The conversation the box writes to (its channel and topic, or its people), if it has one. */
  target(): Term[] | null;
  /** Files dropped elsewhere in the view: uploaded into the box. */
  uploadFiles(files: File[]): void;
}

type Mode = 'stream' | 'dm';

/** A direct message's recipients as the box shows them: the others, or oneself for notes to self. */
function othersOrSelf(userIds: number[]): number[] {
  const others = userIds.filter((id) => id !== model.me.user_id);
  return others.length || !userIds.includes(model.me.user_id) ? others : [model.me.user_id];
}

/** Zulip's video_chat_provider for Jitsi Meet (the one Parley offers). */
const JITSI_MEET = 1;

/**
 * A call in a new Jitsi Meet room of the organization's server (or the
 * server's default), as Zulip's compose box writes it: a link with a random
 * 15-digit room; a voice call starts with the video off.
 */
function callLink(voice: boolean): string {
  const server = String(model.realm.realm_jitsi_server_url ?? model.realm.server_jitsi_server_url ?? 'https://meet.jit.si').replace(/\/+$/, '');
  const digits = crypto.getRandomValues(new Uint32Array(2));
  const room = String(100000000000000 + ((digits[0]! * 0x100000000 + digits[1]!) % 900000000000000));
  return voice ? `[Join voice call.](${server}/${room}#config.startWithVideoMuted=true)` : `[Join video call.](${server}/${room})`;
}

function targetFromNarrow(terms: Term[]): { mode: Mode; streamId?: number; topic?: string; dm?: number[] } {
  const ch = terms.find((t) => t.operator === 'channel' && !t.negated);
  const topic = terms.find((t) => t.operator === 'topic' && !t.negated);
  const dm = terms.find((t) => t.operator === 'dm' && !t.negated);
  if (dm && Array.isArray(dm.operand)) return { mode: 'dm', dm: othersOrSelf(dm.operand) };
  if (ch && typeof ch.operand === 'number') return { mode: 'stream', streamId: ch.operand, topic: topic ? String(topic.operand) : undefined };
  if (terms.length === 1 && terms[0]!.operator === 'is' && terms[0]!.operand === 'dm') return { mode: 'dm' };
  return { mode: 'stream' };
}

/** The conversation a narrow is about (a channel, with its topic or none, or a direct-message conversation), if it is about one. */
function narrowDraftTarget(t: ReturnType<typeof targetFromNarrow>): DraftTarget | null {
  if (t.mode === 'dm' && t.dm?.length) return { type: 'private', to: t.dm, topic: '' };
  if (t.mode === 'stream' && t.streamId !== undefined) return { type: 'stream', to: [t.streamId], topic: t.topic ?? '' };
  return null;
}

/** The conversation a narrow shows alone (a topic, or a direct-message conversation), if it is one. */
function conversationOf(terms: Term[]): Place | null {
  const ch = terms.find((t) => t.operator === 'channel' && !t.negated);
  const topic = terms.find((t) => t.operator === 'topic' && !t.negated);
  if (terms.length === 2 && ch && topic && typeof ch.operand === 'number') return { kind: 'stream', streamId: ch.operand, topic: String(topic.operand) };
  const dm = terms.find((t) => t.operator === 'dm' && !t.negated);
  if (terms.length === 1 && dm && Array.isArray(dm.operand)) return { kind: 'dm', dmKey: model.dmKey(dm.operand) };
  return null;
}

/** Zulip's words when the user may not post in the channel the box points to. */
const CHANNEL_REFUSAL = 'You do not have permission to post in this channel.';
/** Zulip's words when the user may not send where the box points: a channel they may not post to, a direct message they may not send (DM_REFUSALS). */
const POST_REFUSALS: readonly string[] = [CHANNEL_REFUSAL, ...Object.values(DM_REFUSALS)];

/** The compose box, under the message list of the narrow `terms`. */
export function Compose({ handle, terms }: { handle: Ref<ComposeHandle>; terms: Term[] }) {
  const initial = targetFromNarrow(terms);
  const [mode, setMode] = useState<Mode>(initial.mode);
  const [streamId, setStreamId] = useState<number | undefined>(initial.streamId);
  const [topic, setTopic] = useState(initial.topic ?? '');
  const [dmIds, setDmIds] = useState<number[]>(initial.dm ?? []);
  const [dmQuery, setDmQuery] = useState('');
  const [content, setContent] = useState('');
  const [preview, setPreview] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The "Send later" form is open. */
  const [scheduling, setScheduling] = useState(false);
  /** The longest message the server keeps whole, and from what length the box says how long it is (Zulip's web app: the last tenth). */
  const maxLength = Number(model.realm.max_message_length ?? 10000);
  /** The length as the server counts it: characters (code points), so an emoji is one, not two UTF-16 units. */
  const length = useMemo(() => codePoints(content), [content]);
  const showLength = length > maxLength * 0.9;
  /** Whether the view went to the conversation of a message just sent (a banner says so), and its address. */
  const [jumped, setJumped] = useState(false);
  const jumpedTo = useRef<string | null>(null);
  /** A message just sent that the view in place does not show (the view staying where it was): where it went, for a link to it. */
  const [sentElsewhere, setSentElsewhere] = useState<{ hash: string; label: string } | null>(null);
  // Those banners stay only while the view is there.
  useEffect(() => {
    const onHash = () => {
      if (location.hash !== jumpedTo.current) setJumped(false);
      setSentElsewhere(null);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  /** People mentioned (picked from the suggestions) who are not subscribed to the channel: Zulip's warning for each. */
  const [unsubscribedMentions, setUnsubscribedMentions] = useState<number[]>([]);
  /** User groups mentioned (picked from the suggestions) none of whose members are subscribed to the channel: Zulip's warning for each. */
  const [groupsOutside, setGroupsOutside] = useState<number[]>([]);
  /** Private channels linked (picked from the suggestions) that some of this channel's subscribers cannot see: Zulip's warning for each. */
  const [privateLinks, setPrivateLinks] = useState<number[]>([]);
  /** A message just sent to a topic muted for the user, or a muted channel (`channel`): Zulip's notice, with Unmute topic. */
  const [mutedSent, setMutedSent] = useState<{ streamId: number; topic: string; channel: boolean } | null>(null);
  /** The resolved topics whose warning was dismissed or acted on ("channel:topic", lower case). */
  const [resolvedSeen, setResolvedSeen] = useState<string[]>([]);
  /** A wildcard mention about to notify a large channel, waiting for the user's word (Zulip's "Yes, send"); and that word. */
  const [wildcardWarning, setWildcardWarning] = useState<{ mention: string; count: number; channel: string; allowed: boolean } | null>(null);
  const wildcardConfirmed = useRef(false);
  /** Whether the formatting buttons show. */
  const [formatting, setFormatting] = useState(false);
  /** What the last scheduling did (shown until the next message is written). */
  const [scheduled, setScheduled] = useState<string | null>(null);
  /** Messages sent one after another, in the order written: each waits for the one before. */
  const outbox = useRef<Promise<unknown>>(Promise.resolve());
  const [dragging, setDragging] = useState(false);
  const textRef = useRef<HTMLTextAreaElement>(null);
  // Files going in by the paperclip, drag and drop or paste (over tus, each with its banner).
  const uploading = useUploads({ update: (change) => setContent(change), onError: (message) => setError(message), focus: () => textRef.current?.focus() });
  const uploads = uploading.count;
  /** Files into the box; from the preview, back to the text first (where their links go), as Zulip's. */
  const uploadFiles = (files: FileList | File[]) => {
    setPreview(null);
    uploading.uploadFiles(files);
  };
  const pasting = usePaste({ textRef, setText: setContent, uploadFiles });
  const [pickingSnippet, setPickingSnippet] = useState(false);
  const topicRef = useRef<HTMLInputElement>(null);
  const dmRef = useRef<HTMLInputElement>(null);
  const typing = useRef<{ key: string; sentAt: number; stopTimer: number | null; params: Record<string, unknown> } | null>(null);

  /**
   * The address (location.hash) when the topic was last typed in. A click
   * changes the address at once, the narrow follows a moment later: a topic
   * typed in between was typed for the new narrow, and stays.
   */
  const topicTypedAt = useRef<string | null>(null);

  /** The draft the box writes to (a new one until saved). */
  const slot = useRef<DraftSlot>(draftSlot());
  /** The conversation and text last saved to (or restored from) that draft: nothing to save while the box still holds them. */
  const savedAs = useRef('');
  const draftTimer = useRef<number | null>(null);
  /** Saves the box's draft now (set on each render, so that timers and listeners see the current text). */
  const flushRef = useRef<() => void>(() => {});
  const firstNarrow = useRef(true);

  // Follow the narrow: viewing a topic or a conversation makes it the target.
  // In the same update as the narrow (a layout effect, not one after the
  // next paint), so that what is typed next goes to the new target.
  const narrowKey = JSON.stringify(terms);
  useLayoutEffect(() => {
    const t = targetFromNarrow(terms);
    const topicTyped = topicTypedAt.current === location.hash;
    topicTypedAt.current = null;
    // Another conversation: what the box holds stays as the old one's draft,
    // and this one's draft (if any) comes back. Not when the topic was typed
    // after the click: that text was written for the new narrow.
    const next = narrowDraftTarget(t);
    const here = draftTargetNow();
    const first = firstNarrow.current;
    firstNarrow.current = false;
    if (next && !topicTyped && (first || !here || targetKey(next) !== targetKey(here))) {
      if (here) flushRef.current();
      if (here || !content.trim()) {
        const d = draftFor(next);
        slot.current = draftSlot(d?.id ?? null);
        savedAs.current = `${targetKey(next)}\n${d?.content ?? ''}`;
        setContent(d?.content ?? '');
      }
    }
    if (t.mode === 'dm' && t.dm) {
      setMode('dm');
      setDmIds(t.dm);
    } else {
      setDmIds([]);
      if (t.streamId !== undefined) {
        setMode('stream');
        setStreamId(t.streamId);
        if (!topicTyped) setTopic(t.topic ?? '');
      } else if (t.mode === 'dm') setMode('dm');
      // Leaving a direct-message conversation for a view of many conversations: a channel message next, not a direct message to nobody.
      else if (mode === 'dm' && dmIds.length) setMode('stream');
    }
    setPreview(null);
  }, [narrowKey]);

  const subs = model.activeSubs();
  // Without a chosen channel: the one of the newest channel message in view, else a public one.
  const fallbackStream = (() => {
    const msgs = model.list ? model.shownIn(model.list) : [];
    for (let i = msgs.length - 1; i >= 0; i--) {
      const id = msgs[i]!.stream_id;
      if (msgs[i]!.type === 'stream' && id !== undefined && model.subs.has(id) && !model.isArchived(id)) return id;
    }
    return (subs.find((x) => !x.invite_only) ?? subs[0])?.stream_id;
  })();
  // A channel the user is not in, or an archived one, stays chosen (a reply in it, the view of it), as in Zulip: sending then
  // asks them to subscribe first, or says the channel does not exist.
  const effectiveStream = streamId !== undefined && (model.subs.has(streamId) || model.streams.has(streamId)) ? streamId : fallbackStream;
  const archivedTarget = mode === 'stream' && effectiveStream !== undefined && model.isArchived(effectiveStream);
  const notSubscribed = mode === 'stream' && effectiveStream !== undefined && !archivedTarget && !model.subs.has(effectiveStream);
  /** A send was stopped because of the channel (one the user is not in, or archived): Zulip's error, until that changes or another is chosen. */
  const [targetErrorShown, setTargetErrorShown] = useState(false);
  useEffect(() => setTargetErrorShown(false), [effectiveStream, mode]);
  // Why the user may not send where the box points, as Zulip's compose box says at once: the channel's can_send_message_group,
  // or for the people chosen the organization's direct_message_permission_group (and its direct_message_initiator_group,
  // in the view of a conversation that has no messages yet).
  const postRefusal = mode === 'stream' ? (effectiveStream !== undefined && !model.mayPostIn(effectiveStream) ? CHANNEL_REFUSAL : null) : dmIds.length > 0 ? model.directMessageRefusal(dmIds) : null;
  const mayPost = postRefusal === null;
  // A send stopped by such a refusal: its error goes once the box points where the user may send (as Zulip's banner).
  useEffect(() => setError((e) => (e !== null && e !== postRefusal && POST_REFUSALS.includes(e) ? null : e)), [postRefusal]);
  // The channel's topics policy (Zulip's): a general-chat-only channel has no topic field; one that requires topics refuses none.
  const topicsPolicy = mode === 'stream' && effectiveStream !== undefined ? model.topicsPolicy(effectiveStream) : 'allow_empty_topic';
  const generalChatOnly = topicsPolicy === 'empty_topic_only';
  // Where the user may not start topics (the channel's can_create_topic_group), the topic field says to pick one of its topics, as
  // Zulip's topic suggestions do; a new one is refused by the server on sending, as in Zulip's web app.
  const mayNotStartTopic = mode === 'stream' && effectiveStream !== undefined && !model.mayCreateTopicIn(effectiveStream);
  // The channel's topics, for the topic field's suggestions: fetched when the box points at a channel whose topics the client
  // has not loaded nor is loading (one chosen in the box, not opened), as Zulip's topic suggestions ask the server for a channel's topics.
  useEffect(() => {
    if (mode === 'stream' && effectiveStream !== undefined) void model.ensureTopics(effectiveStream);
  }, [mode, effectiveStream]);
  // Warnings about the channel's subscribers go with the channel.
  useEffect(() => {
    setUnsubscribedMentions([]);
    setGroupsOutside([]);
    setPrivateLinks([]);
    setWildcardWarning(null);
  }, [mode, effectiveStream]);

  // ---- drafts: saved a moment after the last change, and at once on leaving the conversation or the page
  function draftTargetNow(): DraftTarget | null {
    if (mode === 'stream') return effectiveStream === undefined ? null : { type: 'stream', to: [effectiveStream], topic };
    return dmIds.length ? { type: 'private', to: dmIds, topic: '' } : null;
  }

  flushRef.current = () => {
    if (draftTimer.current !== null) clearTimeout(draftTimer.current);
    draftTimer.current = null;
    const t = draftTargetNow();
    if (!t) return;
    const state = `${targetKey(t)}\n${content}`;
    if (state === savedAs.current) return;
    savedAs.current = state;
    if (!content.trim() && slot.current.id === null) return;
    saveDraft(slot.current, t, content).catch((err) => console.error('draft not saved', err));
  };

  useEffect(() => {
    if (draftTimer.current !== null) clearTimeout(draftTimer.current);
    draftTimer.current = window.setTimeout(() => flushRef.current(), DRAFT_DELAY);
  }, [content, mode, effectiveStream, topic, dmIds.join(',')]);

  useEffect(() => {
    const onHide = () => {
      if (document.visibilityState === 'hidden') flushRef.current();
    };
    const onPageHide = () => flushRef.current();
    document.addEventListener('visibilitychange', onHide);
    addEventListener('pagehide', onPageHide);
    return () => {
      document.removeEventListener('visibilitychange', onHide);
      removeEventListener('pagehide', onPageHide);
      flushRef.current();
    };
  }, []);

  /** The box's draft is done with (its message is going): the box starts a new one; the caller deletes the old one once the message went. */
  function takeDraft(): DraftSlot {
    const taken = slot.current;
    slot.current = draftSlot();
    if (draftTimer.current !== null) clearTimeout(draftTimer.current);
    draftTimer.current = null;
    const t = draftTargetNow();
    savedAs.current = t ? `${targetKey(t)}\n` : '';
    return taken;
  }

  /** A draft from the Drafts list: its conversation in view, its text in the box (what the box held stays as its own draft). */
  function restoreDraft(d: Draft): void {
    flushRef.current();
    const t = draftTarget(d);
    if (t.type === 'stream') {
      setMode('stream');
      setStreamId(t.to[0]);
      setTopic(t.topic);
      setDmIds([]);
    } else {
      setMode('dm');
      setDmIds(othersOrSelf(t.to));
    }
    setContent(d.content);
    setPreview(null);
    slot.current = draftSlot(d.id);
    savedAs.current = `${targetKey(t)}\n${d.content}`;
    location.hash = narrowToHash(draftNarrow(d));
    setTimeout(() => textRef.current?.focus(), 0);
  }

  // A draft chosen in the Drafts dialog over a view without this box: restored now it is here.
  useEffect(() => {
    const d = takeRestore();
    if (d) restoreDraft(d);
  }, []);

  // Gone with the box (a view without it, such as Inbox): nothing may call into it then. (A layout
  // effect's cleanup runs as the box is removed; Preact runs a passive effect's only after the next paint.)
  useLayoutEffect(
    () => () => {
      if (handle && typeof handle === 'object') handle.current = null;
    },
    [],
  );
  if (handle && typeof handle === 'object') {
    handle.current = {
      restore: restoreDraft,
      uploadFiles,
      target() {
        const t = draftTargetNow();
        if (!t) return null;
        if (t.type === 'stream') return topic.trim() ? [{ operator: 'channel', operand: t.to[0]! }, { operator: 'topic', operand: topic.trim() }] : [{ operator: 'channel', operand: t.to[0]! }];
        return [{ operator: 'dm', operand: t.to }];
      },
      newTopic(id) {
        setMode('stream');
        setStreamId(id);
        setTopic('');
        setTimeout(() => topicRef.current?.focus(), 0);
      },
      focus(m) {
        setMode(m);
        setTimeout(() => (m === 'dm' && !dmIds.length ? dmRef.current : m === 'stream' && !topic ? topicRef.current : textRef.current)?.focus(), 0);
      },
      directMessage(userIds) {
        setMode('dm');
        setDmIds(othersOrSelf(userIds));
        setTimeout(() => textRef.current?.focus(), 0);
      },
      insertQuote({ text, message }) {
        if (message.type === 'stream') {
          setMode('stream');
          setStreamId(message.stream_id);
          setTopic(message.subject);
        } else {
          setMode('dm');
          setDmIds(Array.isArray(message.display_recipient) ? othersOrSelf(message.display_recipient.map((r) => r.id)) : []);
        }
        setContent((c) => (c && !c.endsWith('\n') ? c + '\n' : c) + text);
        setTimeout(() => {
          const el = textRef.current;
          if (el) {
            el.focus();
            el.selectionStart = el.selectionEnd = el.value.length;
          }
        }, 0);
      },
    };
  }

  // ---- typing notifications (Zulip's timing: start every wait period, stop after idle)
  function typingParams(): Record<string, unknown> | null {
    if (mode === 'stream') {
      // (In a general-chat-only channel, the general chat.)
      if (effectiveStream === undefined || (!topic.trim() && !generalChatOnly)) return null;
      return { type: 'stream', stream_id: effectiveStream, topic: generalChatOnly ? '' : topic.trim() };
    }
    if (!dmIds.length) return null;
    return { type: 'direct', to: dmIds };
  }

  function stopTyping(): void {
    const t = typing.current;
    if (!t) return;
    if (t.stopTimer !== null) clearTimeout(t.stopTimer);
    typing.current = null;
    void api('POST', '/typing', { ...t.params, op: 'stop' }).catch(() => {});
  }

  function noteTyping(): void {
    const params = typingParams();
    if (!params) return;
    const setting = params.type === 'stream' ? 'send_stream_typing_notifications' : 'send_private_typing_notifications';
    if (model.settings[setting] === false) return;
    const key = JSON.stringify(params);
    const waitStart = model.realm.server_typing_started_wait_period_milliseconds ?? 10000;
    const waitStop = model.realm.server_typing_stopped_wait_period_milliseconds ?? 5000;
    const now = Date.now();
    if (typing.current && typing.current.key !== key) stopTyping();
    if (!typing.current || now - typing.current.sentAt > waitStart) {
      const prev = typing.current;
      typing.current = { key, sentAt: now, stopTimer: prev?.stopTimer ?? null, params };
      void api('POST', '/typing', { ...params, op: 'start' }).catch(() => {});
    }
    if (typing.current.stopTimer !== null) clearTimeout(typing.current.stopTimer);
    typing.current.stopTimer = window.setTimeout(stopTyping, waitStop);
  }

  useEffect(() => () => stopTyping(), []);

  // ---- sending
  /** What the box would send (POST /messages), or null, saying why not. */
  function outgoing(): Record<string, unknown> | null {
    if (uploads) {
      setError('Wait until the upload is done: its link goes in the message.');
      return null;
    }
    const text = content.trim();
    if (!text) {
      setError('Write a message first.');
      return null;
    }
    if (postRefusal !== null) {
      setError(postRefusal);
      return null;
    }
    if (length > maxLength) {
      // (The server would cut it, as Zulip's does.)
      setError(`Message length shouldn't be greater than ${maxLength} characters.`);
      return null;
    }
    let params: Record<string, unknown>;
    if (mode === 'stream') {
      if (effectiveStream === undefined) {
        setError('Choose a channel.');
        return null;
      }
      if (topicsPolicy === 'disable_empty_topic' && !topic.trim()) {
        setError('Sending messages to the general chat is not allowed in this channel.');
        return null;
      }
      if (notSubscribed || archivedTarget) {
        setError(null);
        setTargetErrorShown(true);
        return null;
      }
      params = { type: 'stream', to: effectiveStream, topic: generalChatOnly ? '' : topic.trim(), content };
    } else {
      if (!dmIds.length) {
        setError('Choose at least one person to message.');
        return null;
      }
      params = { type: 'direct', to: dmIds, content };
    }
    setError(null);
    return params;
  }

  /** Schedules what the box holds for `timestamp` (POST /scheduled_messages); the box empties once the server has it. */
  async function schedule(timestamp: number): Promise<boolean> {
    const params = outgoing();
    if (!params) return false;
    await api('POST', '/scheduled_messages', { ...params, scheduled_delivery_timestamp: timestamp });
    void discardDraft(takeDraft()).catch(() => {});
    setContent('');
    setPreview(null);
    stopTyping();
    setScheduled(`Scheduled for ${fullTime(timestamp)}.`);
    return true;
  }

  async function send(): Promise<void> {
    const params = outgoing();
    if (!params) return;
    // Zulip's check before @all (@everyone, @channel) notifies more than WILDCARD_MENTION_THRESHOLD subscribers: the user's word first.
    const wildcard = params.type === 'stream' ? streamWildcardMention(params.content as string) : null;
    const channel = params.type === 'stream' ? model.streams.get(params.to as number) : undefined;
    const count = channel?.subscriber_count ?? 0;
    // (Those outside the organization's can_mention_many_users_group are told they may not, as the server would.)
    if (wildcard && channel && count > WILDCARD_MENTION_THRESHOLD && !wildcardConfirmed.current) {
      setWildcardWarning({ mention: wildcard, count, channel: channel.name, allowed: model.allows(model.me.user_id, model.realm.realm_can_mention_many_users_group) });
      return;
    }
    wildcardConfirmed.current = false;
    setWildcardWarning(null);
    setUnsubscribedMentions([]);
    setGroupsOutside([]);
    setPrivateLinks([]);
    setMutedSent(null);
    setSentElsewhere(null);
    // The box empties as the message goes, so that the next one can be written
    // (or files dropped) meanwhile; a message that was not sent comes back.
    const draft = takeDraft();
    setContent('');
    setPreview(null);
    stopTyping();
    setTimeout(() => textRef.current?.focus()); // (once rendered: the preview may have been showing)
    setJumped(false);
    const place: Place = params.type === 'stream' ? { kind: 'stream', streamId: params.to as number, topic: params.topic as string } : { kind: 'dm', dmKey: model.dmKey(params.to as number[]) };
    const sent = outbox.current.then(() => api('POST', '/messages', params));
    outbox.current = sent.catch(() => {});
    try {
      const answer = await sent;
      // Sent: its draft goes (after any save of it still under way).
      void discardDraft(draft).catch(() => {});
      // (Zulip's: the user will not hear of replies there; not when the send itself unmuted or followed the topic, as the answer's
      // automatic_new_visibility_policy says, its user_topic event perhaps not here yet.)
      const mutedThere = place.kind === 'stream' && model.isMuted({ type: 'stream', stream_id: place.streamId, subject: place.topic! });
      if (mutedThere && answer.automatic_new_visibility_policy === undefined) {
        setMutedSent({ streamId: place.streamId!, topic: place.topic!, channel: !!model.subs.get(place.streamId!)?.is_muted });
      }
      goToSent(place);
    } catch (err) {
      if (slot.current.id === null) slot.current = draft;
      setContent((c) => (c ? `${content}\n${c}` : content));
      setError(err instanceof ApiError ? err.message : 'Not sent: the server could not be reached. Your message is still here.');
    }
  }

  /**
   * Zulip's web_navigate_to_sent_message (on unless turned off): after a
   * message is sent, the view goes to its conversation unless that
   * conversation alone is in view, saying so.
   */
  function goToSent(place: Place): void {
    const hash = narrowToHash(placeTerms(place));
    // Turned off: the view stays; a message it does not show gets Zulip's "Sent!" line with a link to where it went.
    if (model.settings.web_navigate_to_sent_message === false) {
      if (shownIn(terms, place) === false) setSentElsewhere({ hash, label: placeLabel(place) });
      return;
    }
    const here = conversationOf(terms);
    if (here && placeKey(here) === placeKey(place)) return;
    jumpedTo.current = hash;
    setJumped(true);
    location.hash = hash;
  }

  async function togglePreview(): Promise<void> {
    if (preview !== null) {
      setPreview(null);
      return;
    }
    try {
      const r = await api('POST', '/messages/render', { content: content || ' ' });
      setPreview(r.rendered as string);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Preview failed.');
    }
  }

  // ---- who is typing here
  let typingKey = '';
  if (mode === 'stream' && effectiveStream !== undefined && topic.trim()) typingKey = `stream:${effectiveStream}:${topic.trim().toLowerCase()}`;
  else if (mode === 'dm' && dmIds.length) typingKey = `dm:${model.dmKey(dmIds)}`;
  const typers = typingKey ? model.typingIn(typingKey) : [];

  // Muted users are not offered as recipients (as in Zulip).
  const people = [...model.users.values()].filter((u) => u.is_active && !dmIds.includes(u.user_id) && u.user_id !== model.me.user_id && !model.isUserMuted(u.user_id));
  const q = dmQuery.trim().toLowerCase();
  const suggestions = q ? people.filter((u) => u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q)).slice(0, 6) : [];


  // ---- suggestions for what is typed at the caret (@ mentions, # channels, : emoji)
  const topicSuggest = useTopicSuggestions({
    id: 'topic-suggestions',
    topics: ((effectiveStream !== undefined && model.topics.get(effectiveStream)) || []).map((t) => t.name),
    value: topic,
    mayStartTopic: !mayNotStartTopic,
    setValue: (t) => {
      topicTypedAt.current = location.hash;
      setTopic(t);
    },
    onPicked: () => textRef.current?.focus(),
  });
  const suggest = useSuggestions({ id: 'compose-suggestions', text: content, setText: setContent, textRef, inChannel: mode === 'stream', channelId: mode === 'stream' ? effectiveStream : undefined, enabled: preview === null, commands: true, onPicked: (c) => void (c.streamId !== undefined ? warnIfPrivateLinked(c.streamId) : c.groupId !== undefined ? warnIfGroupOutside(c.groupId) : warnIfNotSubscribed(c.userId)) });

  /** Zulip's warning when none of a user group's members (at any depth) is subscribed to the channel. */
  async function warnIfGroupOutside(groupId: number): Promise<void> {
    const streamId = mode === 'stream' ? effectiveStream : undefined;
    if (streamId === undefined) return;
    const readers = await model.subscribersOf(streamId);
    if (!readers || [...readers].some((id) => model.inGroup(id, groupId))) return;
    setGroupsOutside((ids) => (ids.includes(groupId) ? ids : [...ids, groupId]));
  }

  /**
   * Zulip's warning when a message in a channel links a private channel that
   * some of its subscribers are not in (they cannot see it).
   */
  async function warnIfPrivateLinked(linkedId: number): Promise<void> {
    const streamId = mode === 'stream' ? effectiveStream : undefined;
    if (streamId === undefined || !model.streams.get(linkedId)?.invite_only) return;
    const [readers, linked] = await Promise.all([model.subscribersOf(streamId), model.subscribersOf(linkedId)]);
    if (!readers || (linked && [...readers].every((id) => linked.has(id)))) return;
    setPrivateLinks((ids) => (ids.includes(linkedId) ? ids : [...ids, linkedId]));
  }

  /** Zulip's warning when someone mentioned is not subscribed to the channel (not oneself, not a bot): they would not be notified. */
  async function warnIfNotSubscribed(userId: number | undefined): Promise<void> {
    const streamId = mode === 'stream' ? effectiveStream : undefined;
    const user = userId === undefined ? undefined : model.users.get(userId);
    if (streamId === undefined || !user || user.is_bot || user.user_id === model.me.user_id) return;
    if ((await model.subscribersOf(streamId))?.has(user.user_id) === false) setUnsubscribedMentions((ids) => (ids.includes(user.user_id) ? ids : [...ids, user.user_id]));
  }

  function addDm(id: number): void {
    setDmIds((ids) => (ids.includes(id) ? ids : [...ids, id]));
    setDmQuery('');
    dmRef.current?.focus();
  }

  return (
    <section
      class={cx('compose', dragging && 'dragging')}
      aria-label="Compose"
      onDragOver={(e) => {
        if (e.dataTransfer?.types.includes('Files')) {
          e.preventDefault();
          setDragging(true);
        }
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        setDragging(false);
        if (e.dataTransfer?.files.length) {
          e.preventDefault();
          uploadFiles(e.dataTransfer.files);
        }
      }}
    >
      <div class="typing-line" aria-live="polite">
        {typers.length > 0 && `${typers.map((id) => model.userName(id)).join(', ')} ${typers.length > 1 ? 'are' : 'is'} typing…`}
      </div>
      {jumped && <Banner onDismiss={() => setJumped(false)}>Viewing the conversation where you sent your message. To go back, use your browser’s back button.</Banner>}
      {mode === 'dm' && <GuestWarning ids={dmIds} />}
      {targetErrorShown && notSubscribed && <NotSubscribedError streamId={effectiveStream!} />}
      {uploading.banners}
      {pasting.banner}
      {targetErrorShown && archivedTarget && (
        <Banner kind="error" alert>
          The channel <strong>#{model.streamName(effectiveStream!)}</strong> does not exist. Manage your subscriptions <a href="#channels/all">on your Channels page</a>.
        </Banner>
      )}
      {mode === 'stream' && effectiveStream !== undefined && (
        <NotSubscribedWarnings streamId={effectiveStream} ids={unsubscribedMentions} onDismiss={(id) => setUnsubscribedMentions((ids) => ids.filter((x) => x !== id))} />
      )}
      {sentElsewhere && (
        <Banner onDismiss={() => setSentElsewhere(null)}>
          Sent! Your message is outside your current view. <a href={sentElsewhere.hash}>Go to {sentElsewhere.label}</a>
        </Banner>
      )}
      {mutedSent && <MutedSentNotice sent={mutedSent} onDone={() => setMutedSent(null)} />}
      {groupsOutside.map((id) => (
        <Banner key={id} kind="warning" dismiss={`the warning about ${model.groups.get(id)?.name ?? ''}`} onDismiss={() => setGroupsOutside((ids) => ids.filter((x) => x !== id))}>
          None of the members of <strong>{model.groups.get(id)?.name ?? ''}</strong> are subscribed to this channel.
        </Banner>
      ))}
      {privateLinks.map((id) => (
        <Banner key={id} kind="warning" dismiss={`the warning about #${model.streamName(id)}`} onDismiss={() => setPrivateLinks((ids) => ids.filter((x) => x !== id))}>
          Warning: <strong>#{model.streamName(id)}</strong> is a private channel.
        </Banner>
      ))}
      {mode === 'stream' && effectiveStream !== undefined && content.trim() !== '' && isResolved(topic.trim()) && !resolvedSeen.includes(`${effectiveStream}:${topic.trim().toLowerCase()}`) && (
        <ResolvedTopicWarning
          streamId={effectiveStream}
          topic={topic.trim()}
          onDone={(unresolved) => {
            setResolvedSeen((seen) => [...seen, `${effectiveStream}:${topic.trim().toLowerCase()}`]);
            if (unresolved !== undefined) setTopic(unresolved);
          }}
        />
      )}
      {wildcardWarning && !wildcardWarning.allowed && (
        <Banner kind="error" alert onDismiss={() => setWildcardWarning(null)}>
          You do not have permission to use <strong>@{wildcardWarning.mention}</strong> mentions in this channel.
        </Banner>
      )}
      {wildcardWarning?.allowed && (
        <Banner
          kind="warning"
          alert
          action={
            <button
              type="button"
              class="btn primary"
              onClick={() => {
                wildcardConfirmed.current = true;
                void send();
              }}
            >
              Yes, send
            </button>
          }
        >
          Are you sure you want to send @-mention notifications to the <strong>{wildcardWarning.count}</strong> users subscribed to #{wildcardWarning.channel}? If not, please edit your message
          to remove the <strong>@{wildcardWarning.mention}</strong> mention.
        </Banner>
      )}
      <div class="compose-box">
        <div class="compose-target">
          <div class="mode-switch" role="group" aria-label="Send to">
            <button type="button" class={cx('seg', mode === 'stream' && 'on')} aria-pressed={mode === 'stream'} onClick={() => setMode('stream')}>
              Channel
            </button>
            <button type="button" class={cx('seg', mode === 'dm' && 'on')} aria-pressed={mode === 'dm'} onClick={() => setMode('dm')}>
              Direct message
            </button>
          </div>
          {mode === 'stream' ? (
            <>
              <select aria-label="Channel" value={effectiveStream ?? ''} onChange={(e) => setStreamId(Number(e.currentTarget.value))}>
                {subs.map((s) => (
                  <option key={s.stream_id} value={s.stream_id}>
                    #{s.name}
                  </option>
                ))}
                {(notSubscribed || archivedTarget) && <option value={effectiveStream}>#{model.streamName(effectiveStream!)}</option>}
              </select>
              <span class="target-sep" aria-hidden="true">
                ›
              </span>
              <span class="topic-field">
                <input
                  ref={topicRef}
                  class="topic-input"
                  type="text"
                  aria-label="Topic"
                  placeholder={generalChatOnly ? model.generalChatName() : 'Topic'}
                  title={generalChatOnly ? 'This channel has no topics: its messages go to the general chat.' : mayNotStartTopic ? 'Select a topic from the list.' : undefined}
                  disabled={generalChatOnly}
                  value={generalChatOnly ? '' : topic}
                  maxLength={model.realm.max_topic_length ?? 60}
                  onInput={(e) => {
                    topicTypedAt.current = location.hash;
                    setTopic(e.currentTarget.value);
                    topicSuggest.typed();
                  }}
                  onKeyDown={(e) => topicSuggest.keyDown(e)}
                  {...topicSuggest.inputProps}
                />
                {topicSuggest.list}
              </span>
            </>
          ) : (
            <div class="dm-recipients">
              {dmIds.map((id) => (
                <span class="chip" key={id}>
                  {model.userName(id)}
                  <button type="button" aria-label={`Remove ${model.userName(id)}`} onClick={() => setDmIds(dmIds.filter((x) => x !== id))}>
                    ×
                  </button>
                </span>
              ))}
              <div class="dm-input-wrap">
                <input
                  ref={dmRef}
                  type="text"
                  aria-label="Recipients"
                  placeholder={dmIds.length ? 'Add another person' : 'Name or email'}
                  value={dmQuery}
                  onInput={(e) => setDmQuery(e.currentTarget.value)}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter' && suggestions[0]) {
                      e.preventDefault();
                      addDm(suggestions[0].user_id);
                    } else if (e.key === 'Backspace' && !dmQuery && dmIds.length) setDmIds(dmIds.slice(0, -1));
                  }}
                />
                {suggestions.length > 0 && (
                  <ul class="suggestions" role="listbox" aria-label="People">
                    {suggestions.map((u, i) => (
                      <li key={u.user_id} role="option" aria-selected={i === 0} onMouseDown={(e) => e.preventDefault()} onClick={() => addDm(u.user_id)}>
                        {u.full_name} <span class="muted-text">{u.email}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            </div>
          )}
        </div>
        {preview !== null ? (
          <div class="preview message-content rendered" aria-label="Preview" dangerouslySetInnerHTML={{ __html: prepareHtml(preview) }} />
        ) : (
          <div class="compose-text">
            {suggest.list}
            <textarea
              ref={textRef}
              aria-label="Message"
              {...suggest.textareaProps}
              placeholder={mode === 'stream' ? `Message #${model.streamName(effectiveStream)}${topic ? ` › ${topic}` : ''}` : 'Direct message'}
              value={content}
              rows={Math.min(10, Math.max(2, content.split('\n').length))}
              onInput={(e) => {
                setContent(e.currentTarget.value);
                pasting.onInput();
                suggest.follow(e.currentTarget);
                setError(null);
                setScheduled(null);
                if (e.currentTarget.value) noteTyping();
                else stopTyping();
              }}
              onKeyDown={(e) => {
                if (suggest.keyDown(e) || formattingKey(e, e.currentTarget)) return;
                // Ctrl+' (Zulip's): the saved snippets.
                if (e.key === "'" && (e.ctrlKey || e.metaKey) && !e.altKey && preview === null) {
                  e.preventDefault();
                  setPickingSnippet(true);
                  return;
                }
                if (sendsMessage(e)) {
                  e.preventDefault();
                  void send();
                } else listEnter(e, e.currentTarget);
              }}
              onPaste={pasting.onPaste}
            />
          </div>
        )}
        {error && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
        {postRefusal !== null && !error && <p class="muted-text">{postRefusal}</p>}
        {formatting && preview === null && <FormatBar textRef={textRef} onInsert={(text) => suggest.insert(text)} />}
        <div class="compose-actions">
          <UploadButton inputLabel="Attach files" buttonLabel="Upload files" onFiles={uploadFiles} />
          {preview === null && <InsertEmojiButton onInsert={(syntax) => suggest.insert(syntax)} onClosed={() => textRef.current?.focus()} />}
          {preview === null && <FormattingToggle open={formatting} onToggle={() => setFormatting(!formatting)} />}
          {preview === null && (
            <span class="compose-popover">
              <button type="button" class="btn ghost small" aria-expanded={pickingSnippet} onClick={() => setPickingSnippet(!pickingSnippet)}>
                Snippets
              </button>
              {pickingSnippet && (
                <SnippetPicker
                  draft={content}
                  onPick={(text) => {
                    setPickingSnippet(false);
                    suggest.insert(text);
                  }}
                  onClose={() => {
                    setPickingSnippet(false);
                    textRef.current?.focus();
                  }}
                />
              )}
            </span>
          )}
          {preview === null && model.realm.realm_video_chat_provider === JITSI_MEET && (
            <>
              <button type="button" class="icon-btn" aria-label="Add a video call" title="Add a video call" onClick={() => suggest.insert(callLink(false))}>
                <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true">
                  <rect x="2.5" y="5.5" width="10.5" height="9" rx="1.5" fill="none" stroke="currentColor" stroke-width="1.6" />
                  <path d="M13 9l4.5-2.5v7L13 11z" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linejoin="round" />
                </svg>
              </button>
              <button type="button" class="icon-btn" aria-label="Add a voice call" title="Add a voice call" onClick={() => suggest.insert(callLink(true))}>
                <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true">
                  <path d="M5 3h3l1.5 4-2 1.2a9 9 0 0 0 4.3 4.3l1.2-2 4 1.5v3a2 2 0 0 1-2 2A14 14 0 0 1 3 5a2 2 0 0 1 2-2z" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linejoin="round" />
                </svg>
              </button>
            </>
          )}
          <button type="button" class={cx('btn ghost small', preview !== null && 'on')} aria-pressed={preview !== null} onClick={() => void togglePreview()}>
            {preview !== null ? 'Edit' : 'Preview'}
          </button>
          {showLength && (
            <span class={cx('message-length', length > maxLength && 'over')} aria-label={`${length} of ${maxLength} characters`}>
              {length}/{maxLength}
            </span>
          )}
          <span class="hint" title={uploads ? undefined : sendKeysHint()}>
            {uploads ? 'Uploading…' : sendKeysHint()}
          </span>
          <button type="button" class="btn ghost small" aria-expanded={scheduling} onClick={() => setScheduling(!scheduling)}>
            Send later
          </button>
          <button type="button" class="btn primary" onClick={() => void send()} disabled={uploads > 0 || length > maxLength || !mayPost}>
            Send
          </button>
        </div>
        {scheduling && <ScheduleForm send={schedule} onClose={() => setScheduling(false)} />}
        {scheduled && (
          <p class="muted-text" role="status">
            {scheduled}
          </p>
        )}
        <ScheduledList />
        <RemindersList />
        <DraftsList onRestore={restoreDraft} />
      </div>
    </section>
  );
}

/** Whether the view of `terms` shows one's own message just sent to `place` (null when only the server could say, as for a search). */
function shownIn(terms: Term[], place: Place): boolean | null {
  const me = model.me.user_id;
  const sent: LocalMessage =
    place.kind === 'stream'
      ? { id: -1, type: 'stream', stream_id: place.streamId, subject: place.topic ?? '', sender_id: me, sender_email: model.me.email, display_recipient: model.streamName(place.streamId!), flags: ['read'] }
      : {
          id: -1,
          type: 'private',
          subject: '',
          sender_id: me,
          sender_email: model.me.email,
          display_recipient: [...new Set([...(place.dmKey ?? '').split(',').map(Number), me])].map((id) => ({ id, email: model.users.get(id)?.email ?? '' })),
          flags: ['read'],
        };
  return matches(terms, sent, model.matchContext());
}

/** Where a message went, as Zulip's "Go to" link names it: "#channel > topic", or "direct messages with …". */
function placeLabel(place: Place): string {
  if (place.kind === 'stream') return `#${model.streamName(place.streamId!)} > ${place.topic || model.generalChatName()}`;
  const others = (place.dmKey ?? '').split(',').map(Number).filter((id) => id !== model.me.user_id);
  if (!others.length) return 'direct messages with yourself';
  const names = others.map((id) => model.userName(id)).join(', ');
  return others.length > 1 ? `group direct messages with ${names}` : `direct messages with ${names}`;
}

/** Zulip's threshold (wildcard_mention_threshold): a wildcard mention in a channel with more subscribers than this asks first. */
const WILDCARD_MENTION_THRESHOLD = 15;

/** The channel-wide wildcard a message mentions (all, everyone, channel, stream; not silently), as Zulip finds it; else null. */
function streamWildcardMention(content: string): string | null {
  return /(?:^|\s)@\*\*(all|everyone|channel|stream)\*\*(?=$|\s)/.exec(content)?.[1] ?? null;
}

/**
 * Zulip's notice after a message goes to a topic the user muted (or a muted
 * channel's topic not unmuted there): no notifications will come of it;
 * Unmute topic (in a muted channel, the topic unmuted there).
 */
function MutedSentNotice({ sent, onDone }: { sent: { streamId: number; topic: string; channel: boolean }; onDone(): void }) {
  const { busy, error, run } = useRequest();
  const unmute = () =>
    void run(async () => {
      await api('POST', '/user_topics', { stream_id: sent.streamId, topic: sent.topic, visibility_policy: model.topicMuteAction(sent.streamId, sent.topic).visibility });
      onDone();
    });
  const action = (
    <button type="button" class="btn" disabled={busy} onClick={unmute}>
      Unmute topic
    </button>
  );
  return (
    <Banner action={action} error={error} onDismiss={onDone}>
      Your message was sent to a {sent.channel ? 'channel' : 'topic'} you have muted. You will not receive notifications about new messages.
    </Banner>
  );
}

/**
 * Zulip's warning when writing to a resolved topic, with Unresolve topic
 * for those who may resolve topics there (the whole topic renamed by one of its
 * messages, see messageOfTopic; the box then writes to the new name).
 * Dismissed, or acted on, it does not come back for that topic.
 */
function ResolvedTopicWarning({ streamId, topic, onDone }: { streamId: number; topic: string; onDone(unresolved?: string): void }) {
  const { busy, error, setError, run } = useRequest();
  const mayUnresolve = model.mayResolveIn(streamId);
  const unresolve = () =>
    void run(async () => {
      const newest = await messageOfTopic(streamId, topic);
      if (newest === null) {
        setError('This topic has no message yet.');
        return;
      }
      const to = unresolvedName(topic);
      await moveTopic(newest, { topic: to });
      onDone(to);
    });
  const action = mayUnresolve && (
    <button type="button" class="btn" disabled={busy} onClick={unresolve}>
      Unresolve topic
    </button>
  );
  return (
    <Banner kind="warning" action={action} error={error} dismiss="the warning about the resolved topic" onDismiss={() => onDone()}>
      You are sending a message to a resolved topic. You can send as-is or unresolve the topic first.
    </Banner>
  );
}

/**
 * Zulip's warnings for people mentioned who are not subscribed to the
 * channel (only while they are not), with "Subscribe them" for those who may
 * subscribe others.
 */
function NotSubscribedWarnings({ streamId, ids, onDismiss }: { streamId: number; ids: number[]; onDismiss(id: number): void }) {
  const { busy, error, run } = useRequest();
  const subscribers = model.subscribers.get(streamId);
  const shown = ids.filter((id) => subscribers && !subscribers.has(id));
  if (!shown.length && !error) return null;
  const mayAdd = model.maySubscribeOthers(streamId);
  const channel = model.streams.get(streamId)?.name ?? '';
  return (
    <>
      {shown.map((id) => {
        const name = model.userName(id);
        return (
          <Banner
            key={id}
            kind="warning"
            action={
              mayAdd && (
                <button type="button" class="btn" disabled={busy} onClick={() => void run(() => subscribeUser(channel, id))}>
                  Subscribe them
                </button>
              )
            }
            dismiss={`the warning about ${name}`}
            onDismiss={() => onDismiss(id)}
          >
            <strong>{name}</strong> is not subscribed to this channel. {mayAdd ? 'They will not be notified unless you subscribe them.' : 'They will not be notified if you mention them.'}
          </Banner>
        );
      })}
      <ErrorLine error={error} />
    </>
  );
}

/**
 * Zulip's error when a message would go to a channel the user is not in
 * (the send is stopped until they are), with Subscribe for those who may
 * join it; not dismissable, as in Zulip.
 */
function NotSubscribedError({ streamId }: { streamId: number }) {
  const { busy, error, run } = useRequest();
  const name = model.streams.get(streamId)?.name ?? '';
  const action = model.mayJoin(streamId) && (
    <button type="button" class="btn primary" disabled={busy} onClick={() => void run(() => joinChannel(name))}>
      Subscribe
    </button>
  );
  return (
    <Banner kind="error" alert action={action} error={error}>
      You're not subscribed to this channel. You will not be notified if other users reply to your message.
    </Banner>
  );
}

/**
 * Zulip's warning when a direct message goes to guests (the organization's
 * enable_guest_user_dm_warning): "Ann is a guest in this organization." or
 * "Ann and Bo are guests in this organization."
 */
function GuestWarning({ ids }: { ids: number[] }) {
  if (model.realm.realm_enable_guest_user_dm_warning === false) return null;
  const guests = ids.filter((id) => id !== model.me.user_id && model.isGuest(id)).map((id) => model.users.get(id)!.full_name);
  if (!guests.length) return null;
  const names = new Intl.ListFormat('en', { style: 'long', type: 'conjunction' }).format(guests);
  return <Banner>{guests.length === 1 ? `${names} is a guest in this organization.` : `${names} are guests in this organization.`}</Banner>;
}

/**
 * A line above the compose box (Zulip's compose banners): its text, a
 * button that acts on it, the error of that action, and × where it can be
 * dismissed (`dismiss` names what × dismisses, for the button's label). A
 * warning or an error is marked as such; `alert` for what stops a send.
 */
function Banner(props: { kind?: 'warning' | 'error'; alert?: boolean; action?: ComponentChild; error?: string | null; dismiss?: string; onDismiss?(): void; children: ComponentChildren }) {
  const { kind, alert, action, error, dismiss, onDismiss, children } = props;
  return (
    <div class={cx('compose-banner', kind)} role={alert ? 'alert' : 'status'}>
      <span>{children}</span>
      {action}
      {onDismiss && (
        <button type="button" class="icon-btn" aria-label={dismiss ? `Dismiss ${dismiss}` : 'Dismiss'} onClick={onDismiss}>
          ×
        </button>
      )}
      {error !== undefined && <ErrorLine error={error} />}
    </div>
  );
}
