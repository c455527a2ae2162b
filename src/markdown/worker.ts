/**
 * The Markdown worker thread (run by the pool in pool.ts): renders one
 * message from a plain-data context. The task's shared `started` cell
 * tells the pool when rendering began, so its time budget counts rendering
 * only, not time spent waiting in the queue.
 */
import { renderMarkdown, type MarkdownContext, type RenderResult } from './index.ts';
import { MarkdownRenderingError } from './errors.ts';
import type { Linkifier } from './linkifiers.ts';
import type { EmbedData } from './previews.ts';

/** What the renderer may look up, as plain data (users as [id, full_name, email]). */
export interface RenderData {
  users: Array<[number, string, string]>;
  groups: Array<[number, string]>;
  streams: Array<[number, string]>;
  /** The organization's custom emoji used in the text. */
  customEmoji: Array<{ id: string; name: string; source_url: string }>;
  /** The organization's linkifiers, in their order. */
  linkifiers: Linkifier[];
  realmUrl: string;
  /** The organization's default_code_block_language ('' for none). */
  defaultCodeBlockLanguage?: string;
  /** The organization's inline_image_preview. */
  inlineImagePreview?: boolean;
  /** The uploads linked in the text that are known: [path_id, width, height, frames (0: not an image), content type]. */
  uploads?: Array<[string, number, number, number, string]>;
  /** The topics linked in the text that have messages: [channel ID, topic, latest message ID]. */
  topics?: Array<[number, string, number]>;
  /** The organization's realm_empty_topic_display_name. */
  emptyTopicDisplayName?: string;
  /** Website previews wanted (inline_url_embed_preview, not a bot's message), with what is known of the links: [URL, data or null]. */
  urlEmbeds?: Array<[string, EmbedData | null]>;
}

export interface RenderTask {
  content: string;
  data: RenderData;
  /** Float64 cell: the worker writes Date.now() into it when it starts. */
  started: SharedArrayBuffer;
}

/** `ms`: how long the render took on the worker (the pool's time budget is checked against it). */
export type RenderReply = { ok: true; result: RenderResult; ms: number } | { ok: false; error: string };

/** The rendering context the renderer expects, over the plain data sent with the task. */
export function contextFromData(data: RenderData): MarkdownContext {
  const byName = new Map<string, { id: number; full_name: string; email: string } | null>();
  const byId = new Map<number, { id: number; full_name: string; email: string }>();
  for (const [id, full_name, email] of data.users) {
    const u = { id, full_name, email };
    byId.set(id, u);
    const k = full_name.toLowerCase();
    byName.set(k, byName.has(k) ? null : u);
  }
  const groups = new Map(data.groups.map(([id, name]) => [name.toLowerCase(), { id, name }]));
  const streams = new Map(data.streams.map(([id, name]) => [name.toLowerCase(), { id, name }]));
  const emoji = new Map(data.customEmoji.map((e) => [e.name, e]));
  const topics = new Map((data.topics ?? []).map(([streamId, topic, id]) => [`${streamId}\n${topic.toLowerCase()}`, id]));
  const uploads = new Map((data.uploads ?? []).map(([pathId, width, height, frames, contentType]) => [pathId, { width, height, frames, contentType }]));
  const embeds = new Map(data.urlEmbeds ?? []);
  return {
    userByFullName: (name) => byName.get(name.toLowerCase()) ?? undefined,
    userById: (id) => byId.get(id),
    groupByName: (name) => groups.get(name.toLowerCase()),
    streamByName: (name) => streams.get(name.toLowerCase()),
    topicLatestMessageId: (streamId, topic) => topics.get(`${streamId}\n${topic.toLowerCase()}`),
    emptyTopicDisplayName: data.emptyTopicDisplayName,
    customEmojiByName: (name) => emoji.get(name),
    linkifiers: data.linkifiers,
    realmUrl: data.realmUrl,
    defaultCodeBlockLanguage: data.defaultCodeBlockLanguage,
    inlineImagePreview: data.inlineImagePreview,
    uploadImage: (pathId) => uploads.get(pathId),
    ...(data.urlEmbeds ? { urlEmbedData: (url: string) => embeds.get(url) } : {}),
  };
}

export default function renderTask(task: RenderTask): RenderReply {
  new Float64Array(task.started)[0] = Date.now();
  const t0 = performance.now();
  try {
    const result = renderMarkdown(task.content, contextFromData(task.data));
    return { ok: true, result, ms: performance.now() - t0 };
  } catch (e) {
    if (e instanceof MarkdownRenderingError) return { ok: false, error: e.message };
    throw e;
  }
}
