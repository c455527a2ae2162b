/**
 * Drafts: what the compose box holds for a conversation, kept at the server
 * (POST /drafts, PATCH and DELETE /drafts/{id}; `model.drafts` from /register
 * and the drafts events) while the user's enable_drafts_synchronization is
 * on, else in this browser's localStorage, per user. The requests go one
 * after another, so that a draft is created once and then changed.
 */
import { api } from './api.ts';
import { model, type Draft } from './model.ts';
import { storedList } from './util.ts';
import type { Term } from './narrow.ts';

/** Where a draft goes: a channel and topic, or the direct-message recipients (without oneself). */
export interface DraftTarget {
  type: 'stream' | 'private';
  to: number[];
  topic: string;
}

/**
 * The draft the compose box is writing (`id` null until it is saved). The
 * queued requests read and set the id, so a save that waits behind the first
 * one's creation changes that draft instead of making a second. `synced` and
 * `turn`: where the ID is (at the server or in this browser), and how many
 * times this page had moved the drafts between the two then (see `turns`).
 */
export interface DraftSlot {
  id: number | null;
  synced: boolean;
  turn: number;
}

/**
 * Each time this page turns drafts synchronization on or off, the drafts
 * move to the other store under new IDs: each turn's old ID → new ID, in
 * order. A slot made before a turn follows them to its draft's new ID (else
 * the box would write a second draft for its conversation, or, with an ID
 * taken in the other store, change another conversation's draft).
 */
const turns: Array<Map<number, number>> = [];

/** A slot for the draft with this ID (null: a draft not saved yet). */
export function draftSlot(id: number | null = null): DraftSlot {
  return { id, synced: syncing(), turn: turns.length };
}

/**
 * Brings the slot's ID to the store drafts are in now. Turned elsewhere (in
 * another tab or device, which moved its own copy of the drafts), the slot
 * starts a new draft.
 */
function rehome(slot: DraftSlot): void {
  for (; slot.turn < turns.length; slot.turn++) {
    slot.id = slot.id === null ? null : (turns[slot.turn]!.get(slot.id) ?? null);
    slot.synced = !slot.synced;
  }
  if (slot.synced !== syncing()) {
    slot.id = null;
    slot.synced = syncing();
  }
}

/** Whether drafts are kept at the server (the user's setting, on unless turned off). */
export function syncing(): boolean {
  return model.settings.enable_drafts_synchronization !== false;
}

/** One key per conversation: the channel and topic (case does not matter), or the recipients. */
export function targetKey(t: DraftTarget): string {
  if (t.type === 'stream') return `stream:${t.to[0]}:${t.topic.trim().toLowerCase()}`;
  return `private:${[...t.to].filter((id) => id !== model.me.user_id).sort((a, b) => a - b).join(',')}`;
}

/** Where a draft goes. */
export function draftTarget(d: Draft): DraftTarget {
  return { type: d.type === 'stream' ? 'stream' : 'private', to: d.to, topic: d.topic };
}

/** The conversation a draft is for, as a narrow. */
export function draftNarrow(d: Draft): Term[] {
  const t = draftTarget(d);
  return t.type === 'stream' ? [{ operator: 'channel', operand: t.to[0]! }, { operator: 'topic', operand: t.topic }] : [{ operator: 'dm', operand: t.to }];
}

// ------------------------------------------------------------ this browser's drafts

function storageKey(): string {
  return `parley-drafts:${model.me.user_id}`;
}

function localDrafts(): Draft[] {
  return storedList(storageKey()) as Draft[];
}

function writeLocal(list: Draft[]): void {
  localStorage.setItem(storageKey(), JSON.stringify(list));
  model.changed();
}

// Another tab changed this browser's drafts: show them.
addEventListener('storage', (e) => {
  if (model.ready && e.key === storageKey()) model.changed();
});

// ------------------------------------------------------------ reading

/** The user's drafts (at the server or in this browser), newest first. */
export function allDrafts(): Draft[] {
  const list = syncing() ? [...model.drafts.values()] : localDrafts();
  return list.filter((d) => d.type !== '').sort((a, b) => b.timestamp - a.timestamp);
}

/** The newest draft for a conversation, if there is one. */
export function draftFor(t: DraftTarget): Draft | undefined {
  const key = targetKey(t);
  return allDrafts().find((d) => targetKey(draftTarget(d)) === key);
}

/** A draft to restore once the compose box is there (chosen in the Drafts dialog over a view without one). */
let pendingRestore: Draft | null = null;

/** Asks the next compose box shown to restore `d`. */
export function restoreLater(d: Draft): void {
  pendingRestore = d;
}

/** The draft waiting to be restored, once. */
export function takeRestore(): Draft | null {
  const d = pendingRestore;
  pendingRestore = null;
  return d;
}

// ------------------------------------------------------------ writing

let queue: Promise<unknown> = Promise.resolve();

/** Runs `fn` after the requests queued before it; a failure is thrown to the caller only. */
function queued<T>(fn: () => Promise<T>): Promise<T> {
  const done = queue.then(fn);
  queue = done.catch(() => {});
  return done;
}

/** The draft object the API takes. */
function draftParam(t: DraftTarget, content: string): Record<string, unknown> {
  return { type: t.type, to: t.to, topic: t.type === 'stream' ? t.topic.trim() : '', content, timestamp: Math.floor(Date.now() / 1000) };
}

async function saveNow(slot: DraftSlot, t: DraftTarget, content: string): Promise<void> {
  if (!content.trim()) return discardNow(slot);
  rehome(slot);
  const draft = draftParam(t, content);
  if (!syncing()) {
    const list = localDrafts();
    const old = list.find((d) => d.id === slot.id);
    if (old) Object.assign(old, draft);
    else {
      slot.id = Math.max(0, ...list.map((d) => d.id)) + 1;
      list.push({ id: slot.id, ...draft } as Draft);
    }
    writeLocal(list);
    return;
  }
  if (slot.id !== null && model.drafts.has(slot.id)) {
    await api('PATCH', `/drafts/${slot.id}`, { draft });
    model.drafts.set(slot.id, { id: slot.id, ...draft } as Draft);
  } else {
    // New, or deleted elsewhere meanwhile: a new draft.
    const r = await api('POST', '/drafts', { drafts: [draft] });
    slot.id = r.ids[0] as number;
    model.drafts.set(slot.id, { id: slot.id, ...draft } as Draft);
  }
  model.changed();
}

async function discardNow(slot: DraftSlot): Promise<void> {
  rehome(slot);
  const id = slot.id;
  slot.id = null;
  if (id === null) return;
  if (!syncing()) {
    writeLocal(localDrafts().filter((d) => d.id !== id));
    return;
  }
  if (!model.drafts.has(id)) return;
  await api('DELETE', `/drafts/${id}`);
  model.drafts.delete(id);
  model.changed();
}

/** Saves `content` as the slot's draft for `t` (an empty text deletes it). */
export function saveDraft(slot: DraftSlot, t: DraftTarget, content: string): Promise<void> {
  return queued(() => saveNow(slot, t, content));
}

/** Deletes the slot's draft, if it has one (a message was sent or scheduled). */
export function discardDraft(slot: DraftSlot): Promise<void> {
  return queued(() => discardNow(slot));
}

/** Deletes a draft from the Drafts list: the server's refusal is thrown. */
export function deleteDraft(id: number): Promise<void> {
  return queued(async () => {
    if (!syncing()) {
      writeLocal(localDrafts().filter((d) => d.id !== id));
      return;
    }
    await api('DELETE', `/drafts/${id}`);
    model.drafts.delete(id);
    model.changed();
  });
}

/**
 * Turns keeping drafts at the server on or off without losing them: turned
 * off, the server's drafts are copied into this browser first (the server
 * deletes its own then, as Zulip's does); turned on, this browser's drafts
 * are sent to the server after, and kept there only. After the drafts
 * being saved, so none is caught half-way.
 */
export function setDraftsSynchronization(on: boolean): Promise<void> {
  return queued(async () => {
    if (on === syncing()) return;
    const moved = new Map<number, number>();
    if (!on) {
      const local = localDrafts();
      let next = Math.max(0, ...local.map((d) => d.id));
      const copies = [...model.drafts.values()].filter((d) => d.type !== '').map((d) => {
        moved.set(d.id, ++next);
        return { ...d, id: next };
      });
      writeLocal([...local, ...copies]);
      await api('PATCH', '/settings', { enable_drafts_synchronization: false });
      model.settings.enable_drafts_synchronization = false;
      turns.push(moved);
      return;
    }
    await api('PATCH', '/settings', { enable_drafts_synchronization: true });
    model.settings.enable_drafts_synchronization = true;
    const local = localDrafts().filter((d) => d.type !== '');
    if (local.length) {
      const r = await api('POST', '/drafts', { drafts: local.map(({ type, to, topic, content, timestamp }) => ({ type, to, topic, content, timestamp })) });
      (r.ids as number[]).forEach((id, i) => {
        model.drafts.set(id, { ...local[i]!, id });
        moved.set(local[i]!.id, id);
      });
    }
    writeLocal([]);
    turns.push(moved);
  });
}

/** The conversation a draft goes to, as the list says it. */
export function draftPlace(d: Draft): string {
  return d.type === 'stream' ? model.placeName(d.to[0], d.topic, []) : model.placeName(undefined, '', d.to);
}
