// Inline image, video and YouTube previews (Zulip's InlineInterestingLinkProcessor,
// image, video and YouTube parts), run on the tree after inline processing and
// prettifying, when the organization's inline_image_preview is on.
//
// Every link is found with its parent and grandparent (inline nodes live in
// the stash and are referenced by placeholders in text and tails). Links in
// quotes are not previewed; each URL is previewed once; with more than
// INLINE_PREVIEW_LIMIT_PER_MESSAGE distinct previewable URLs nothing is.
// A preview goes after the paragraph holding the link (after earlier
// previews of that paragraph), into the list item holding it, or else at
// the end of the message. A paragraph (or list item text) that is only the
// bare URL is replaced by its preview.
//
// One pass over the tree: linear in the size of the message.
import { createHmac } from 'node:crypto';
import { UPLOADS_PATH_PREFIX } from '../lib/static-paths.ts';
import { defaultFormat, transcodedFor, type UploadImageInfo } from '../lib/thumbnail-formats.ts';
import { El } from './tree.ts';

/** Zulip's INLINE_PREVIEW_LIMIT_PER_MESSAGE. */
export const INLINE_PREVIEW_LIMIT_PER_MESSAGE = 24;

const IMAGE_EXTENSIONS = ['.bmp', '.gif', '.jpe', '.jpeg', '.jpg', '.png', '.webp'];
/** Container formats browsers play everywhere (Zulip: video/mp4 and video/webm by file extension). */
const VIDEO_EXTENSIONS = ['.mp4', '.webm'];

const INLINE_PH_RE = /\u0002klzzwxh:(\d+)\u0003/g;

/** A link to a tweet (Zulip's get_tweet_id): never given a website preview. */
const TWEET_RE = /^https?:\/\/(?:www\.)?twitter\.com\/(?:#!\/)?\w{1,15}\/status(?:es)?\/\d{1,30}(?:\/photo\/\d)?\/?$/i;
/** A link to a Vimeo video (Zulip's vimeo_id): its preview names the video in the link. */
const VIMEO_RE = /^((http|https)?:\/\/(www\.)?vimeo.com\/(?:channels\/(?:\w+\/)?|groups\/([^/]*)\/videos\/|)(\d+)(?:|\/\?))$/;

/** The hosts whose links Zulip reads a YouTube video from (besides youtu.be). */
const YOUTUBE_HOSTS = new Set(['m.youtube.com', 'www.youtube.com', 'www.youtube-nocookie.com', 'youtube.com', 'youtube-nocookie.com']);

/**
 * The video's ID in a link to YouTube, or null (Zulip's youtube_id): a
 * watch page's `v`, the first of `video_ids`, an embed, short or `/v/`
 * path, or a youtu.be link; letters, digits, `_` and `-` only.
 */
export function youtubeId(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  // (Python's parse_qs, which Zulip uses, leaves out empty values.)
  const param = (name: string) => u.searchParams.getAll(name).find((v) => v !== '');
  let id: string | undefined;
  if (YOUTUBE_HOSTS.has(u.hostname)) {
    if (u.pathname === '/watch' || u.pathname === '/watch_popup') id = param('v');
    else if (u.pathname === '/watch_videos') id = param('video_ids')?.split(',')[0];
    else if (/^\/(embed|shorts|v)\//.test(u.pathname)) id = u.pathname.split('/')[2];
  } else if (u.hostname === 'youtu.be') id = u.pathname.slice(1);
  return id !== undefined && /^[0-9A-Za-z_-]+$/.test(id) ? id : null;
}

/** What a linked website says of itself (see lib/url-preview.ts), for its embed. */
export interface EmbedData {
  title?: string;
  description?: string;
  image?: string;
}

export interface PreviewOptions {
  /** Image, video and YouTube previews (the organization's inline_image_preview). */
  images: boolean;
  /**
   * Website previews (the organization's inline_url_embed_preview, for a
   * message not sent by a bot): each link's data, null when it has none,
   * undefined when not fetched yet (the link is then listed in linksForPreview).
   */
  embeds?: (url: string) => EmbedData | null | undefined;
  /** This server's host: its own links get no website preview. */
  realmHost?: string;
  /** The camo image proxy (Zulip's CAMO_URI and key) videos are served through; without it, the URL itself. */
  camo?: { uri: string; key: string };
  /** What is known of the upload at a path_id (frames 0: not an image); undefined for a file uploaded before images were read. */
  upload?: (pathId: string) => UploadImageInfo | undefined;
}

type InlineNode = El | { str: string };

/** Where a link's placeholder is: in `site.text` (site is the parent) or in `site.tail` (site is a child of the parent). */
interface Found {
  a: El;
  url: string;
  /** The tree element (block) whose content holds the link, however deeply. */
  block: El;
  parent: El;
  grandparent: El | null;
  inBlockquote: boolean;
  site: El;
  field: 'text' | 'tail';
  placeholder: string;
}

/** Python's urllib.parse.quote(s, safe=''). */
function pyQuote(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function pathOf(url: string): string | null {
  if (url.startsWith(UPLOADS_PATH_PREFIX)) return url.split(/[?#]/, 1)[0]!.toLowerCase();
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.pathname.toLowerCase() : null;
  } catch {
    return null;
  }
}

function camoUrl(url: string, camo: PreviewOptions['camo']): string {
  if (!camo) return url;
  const digest = createHmac('sha1', camo.key).update(url).digest('hex');
  return `${camo.uri}${digest}/${Buffer.from(url, 'utf8').toString('hex')}`;
}

/** Whether an element is a preview Zulip places after a paragraph. */
function isPreviewDiv(el: El): boolean {
  if (el.tag !== 'div') return false;
  const cls = (el.get('class') ?? '').split(/\s+/);
  return cls.includes('message_inline_image') || cls.includes('message_inline_ref') || cls.includes('inline-preview-twitter');
}

export class InlinePreviews {
  private readonly stash: InlineNode[];
  private readonly opts: PreviewOptions;
  private found: Found[] = [];
  /** Whether an image preview was added (Zulip's has_image). */
  addedImage = false;
  /** The links whose website data is wanted (Zulip's links_for_preview). */
  readonly linksForPreview: string[] = [];

  constructor(stash: InlineNode[], opts: PreviewOptions) {
    this.stash = stash;
    this.opts = opts;
  }

  run(root: El): void {
    this.walk(root, null, false);
    const previewable = new Set(this.found.filter((f) => !f.inBlockquote).map((f) => f.url));
    if (previewable.size === 0 || previewable.size > INLINE_PREVIEW_LIMIT_PER_MESSAGE) return;
    const processed = new Set<string>();
    for (const f of this.found) {
      if (!previewable.has(f.url) || processed.has(f.url)) continue;
      processed.add(f.url);
      let youtube: string | null = null;
      if (this.opts.images) {
        // An uploaded image is previewed by its thumbnail, whatever its name; an
        // upload known not to be an image is not previewed as one.
        const upload = f.url.startsWith(UPLOADS_PATH_PREFIX) ? this.opts.upload?.(f.url.slice(UPLOADS_PATH_PREFIX.length)) : undefined;
        if (upload && upload.frames > 0) {
          this.inline(root, f, 'image', upload);
          continue;
        }
        const path = pathOf(f.url);
        if (path === null) continue;
        if (IMAGE_EXTENSIONS.some((e) => path.endsWith(e))) {
          if (!upload) this.inline(root, f, 'image');
          continue;
        }
        if (VIDEO_EXTENSIONS.some((e) => path.endsWith(e))) {
          this.inline(root, f, 'video');
          continue;
        }
        youtube = youtubeId(f.url);
        // (Then on to the website preview, which names the video in the link, as Zulip's.)
        if (youtube !== null) this.inline(root, f, 'youtube', undefined, youtube);
      }
      if (this.opts.embeds) this.embedFor(root, f, youtube);
    }
  }

  /** Zulip's website preview of a link: its data asked for, or its embed at the end of the message. */
  private embedFor(root: El, f: Found, youtube: string | null): void {
    let host: string;
    try {
      host = new URL(f.url).host;
    } catch {
      // A relative link: this server's own.
      return;
    }
    if (!host || host === this.opts.realmHost || TWEET_RE.test(f.url)) return;
    const data = this.opts.embeds!(f.url);
    if (data === undefined) {
      this.linksForPreview.push(f.url);
      return;
    }
    if (data === null) return;
    const named = this.linkName(f) !== null;
    if (youtube !== null) {
      if (data.title !== undefined && !named) f.a.text = `YouTube - ${data.title}`;
      return;
    }
    if (data.image === undefined) return;
    const container = new El('div');
    container.set('class', 'message_embed');
    const image = container.append('a');
    image.set('class', 'message_embed_image');
    image.set('href', f.url);
    const src = camoUrl(data.image, this.opts.camo).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\a ');
    image.set('style', `background-image: url("${src}")`);
    const details = container.append('div');
    details.set('class', 'data-container');
    if (data.title) {
      const title = details.append('div');
      title.set('class', 'message_embed_title');
      const a = title.append('a');
      a.set('href', f.url);
      a.set('title', data.title);
      a.text = data.title;
    }
    if (data.description) {
      const description = details.append('div');
      description.set('class', 'message_embed_description');
      description.text = data.description;
    }
    root.children.push(container);
    if (VIMEO_RE.test(f.url) && data.title !== undefined && !named) f.a.text = `Vimeo - ${data.title}`;
  }

  // ---- finding links ----

  private walk(el: El, parent: El | null, inBlockquote: boolean, block: El = el): void {
    const quoted = inBlockquote || el.tag === 'blockquote';
    this.scan(el.text, el, parent, quoted, el, 'text', block);
    for (const child of el.children) {
      this.walk(child, el, quoted);
      this.scan(child.tail, el, parent, quoted, child, 'tail', block);
    }
  }

  /** Finds links in a string of `owner`'s content (text, or a child's tail). */
  private scan(s: string, owner: El, ownerParent: El | null, inBlockquote: boolean, site: El, field: 'text' | 'tail', block: El): void {
    if (!s.includes('\u0002')) return;
    for (const m of s.matchAll(INLINE_PH_RE)) {
      const node = this.stash[+m[1]!];
      if (node === undefined) continue;
      if (!(node instanceof El)) {
        this.scan(node.str, owner, ownerParent, inBlockquote, site, field, block);
        continue;
      }
      if (node.tag === 'a') {
        const url = node.get('href');
        if (url !== undefined) this.found.push({ a: node, url, block, parent: owner, grandparent: ownerParent, inBlockquote, site, field, placeholder: m[0] });
      }
      // Inline elements (emphasis, the link itself) hold further content.
      this.walk(node, owner, inBlockquote, block);
    }
  }

  // ---- placing previews ----

  /**
   * Zulip's get_inlining_information, then add_a / add_video, then the
   * removal. A YouTube link (`youtube`, the video's ID) gets its thumbnail
   * and stays as it is (Zulip's handle_youtube_url_inlining: no title).
   */
  private inline(root: El, f: Found, kind: 'image' | 'video' | 'youtube', upload?: UploadImageInfo, youtube?: string): void {
    const name = this.linkName(f);
    // (A YouTube link is never removed, and its preview has no title.)
    const urlEqText = name === null && kind !== 'youtube';
    const title = kind === 'youtube' ? null : name;
    let target = root;
    let index: number | null = null;
    let remove: (() => void) | null = null;
    const holder = f.field === 'text' ? f.site.text : f.site.tail;
    const at = holder.indexOf(f.placeholder);
    const before = holder.slice(0, at);
    const after = holder.slice(at + f.placeholder.length);
    const tail = after.split('\u0002')[0]!;
    if (f.parent.tag === 'li') {
      target = f.parent;
      const parentText = this.leadingText(f.parent.text);
      if (!parentText && f.field === 'text' && !before.includes('\u0002') && !tail && urlEqText) {
        remove = () => {
          const s = f.site.text;
          const i = s.indexOf(f.placeholder);
          f.site.text = s.slice(0, i) + s.slice(i + f.placeholder.length);
        };
      }
    } else if (f.parent.tag === 'p' && f.grandparent) {
      const grandparent = f.grandparent;
      target = grandparent;
      const p = f.parent;
      const onlyChild = f.field === 'text' && p.children.length === 0 && this.elementCount(p.text) === 1;
      if (onlyChild && (before === '' || before === '\n') && !tail && urlEqText) {
        remove = () => {
          const i = grandparent.children.indexOf(p);
          if (i >= 0) grandparent.children.splice(i, 1);
        };
      }
      const parentIndex = grandparent.children.indexOf(p);
      if (parentIndex >= 0) index = this.insertionIndex(grandparent, p, parentIndex);
    }
    const div = new El('div');
    div.set('class', kind === 'image' ? 'message_inline_image' : kind === 'video' ? 'message_inline_image message_inline_video' : 'youtube-video message_inline_image');
    const a = div.append('a');
    a.set('href', f.url);
    if (title !== null) a.set('title', title);
    if (kind === 'youtube') {
      a.set('data-id', youtube!);
      a.append('img').set('src', camoUrl(`https://i.ytimg.com/vi/${youtube}/default.jpg`, this.opts.camo));
      this.addedImage = true;
    } else if (kind === 'image' && upload) {
      // Attributes in the order Zulip's rewrite of thumbnailed images leaves them (sorted).
      const img = a.append('img');
      if (upload.frames > 1) img.set('data-animated', 'true');
      img.set('data-original-content-type', upload.contentType);
      img.set('data-original-dimensions', `${upload.width}x${upload.height}`);
      const transcoded = transcodedFor(upload);
      if (transcoded) img.set('data-transcoded-image', transcoded.name);
      img.set('src', `${UPLOADS_PATH_PREFIX}thumbnail/${f.url.slice(UPLOADS_PATH_PREFIX.length)}/${defaultFormat(upload).name}`);
      this.addedImage = true;
    } else if (kind === 'image') {
      const img = a.append('img');
      // An uploaded file goes by its path without the leading slash, as Zulip's thumbnail URLs have it.
      const quoted = pyQuote(f.url.startsWith(UPLOADS_PATH_PREFIX) ? f.url.slice(1) : f.url);
      img.set('src', `/thumbnail?url=${quoted}&size=thumbnail`);
      img.set('data-src-fullsize', `/thumbnail?url=${quoted}&size=full`);
      this.addedImage = true;
    } else {
      const video = a.append('video');
      // This server's own uploads are served as they are; other sites' videos through the image proxy.
      video.set('src', f.url.startsWith(UPLOADS_PATH_PREFIX) ? f.url : camoUrl(f.url, this.opts.camo));
      video.set('preload', 'metadata');
      video.set('data-video-original-url', f.url);
    }
    if (index === null) target.children.push(div);
    else target.children.splice(index, 0, div);
    remove?.();
  }

  /** Zulip's find_proper_insertion_index: after the paragraph and the previews of its own links that follow it. */
  private insertionIndex(grandparent: El, parent: El, parentIndex: number): number {
    const links = new Set<string>();
    this.collectHrefs(parent, links);
    let i = parentIndex;
    for (;;) {
      i++;
      if (i >= grandparent.children.length) return i;
      const uncle = grandparent.children[i]!;
      if (!isPreviewDiv(uncle)) return i;
      const href = uncle.children.find((c) => c.tag === 'a')?.get('href');
      if (href === undefined || !links.has(href)) return i;
    }
  }

  private collectHrefs(el: El, out: Set<string>): void {
    for (const f of this.found) if (f.block === el) out.add(f.url);
  }

  /** A link's own words where they differ from its URL (Zulip's url_eq_text false), else null. */
  private linkName(f: Found): string | null {
    const text = this.leadingText(f.a.text);
    return text === '' || text === f.url ? null : text;
  }

  /** ElementTree's `text` of an element: the text before its first child element. */
  private leadingText(s: string): string {
    let out = '';
    let last = 0;
    for (const m of s.matchAll(INLINE_PH_RE)) {
      out += s.slice(last, m.index);
      const node = this.stash[+m[1]!];
      if (node instanceof El) return out;
      if (node) out += this.leadingText(node.str);
      last = m.index + m[0].length;
    }
    return out + s.slice(last);
  }

  /** How many elements a string of content holds. */
  private elementCount(s: string): number {
    let n = 0;
    for (const m of s.matchAll(INLINE_PH_RE)) {
      const node = this.stash[+m[1]!];
      if (node instanceof El) n++;
      else if (node) n += this.elementCount(node.str);
    }
    return n;
  }
}
