import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderMarkdown } from '../src/markdown/index.ts';
import type { MarkdownContext } from '../src/markdown/index.ts';
import { checkUnicodeEmoji, emojiByCode, emojiByName, nameForUnicodeSequence } from '../src/emoji/index.ts';

const CASES_PATH = fileURLToPath(new URL('../../shared/reference/markdown-cases.json', import.meta.url));

const USERS = [
  { id: 10, full_name: 'King Hamlet', email: 'hamlet@zulip.com' },
  { id: 11, full_name: 'Cordelia, Lear\'s daughter', email: 'cordelia@zulip.com' },
  { id: 12, full_name: 'Othello, the Moor of Venice', email: 'othello@zulip.com' },
  { id: 13, full_name: 'Mark Twin', email: 'twin1@zulip.com' },
  { id: 14, full_name: 'Mark Twin', email: 'twin2@zulip.com' },
];
const GROUPS = [
  { id: 21, name: 'support' },
  { id: 22, name: 'backend' },
];
const STREAMS = [
  { id: 1, name: 'Denmark' },
  { id: 2, name: 'Verona' },
  { id: 3, name: 'Stream with spaces' },
];

function makeCtx(overrides: Partial<MarkdownContext> = {}): MarkdownContext {
  return {
    userByFullName(name) {
      const matches = USERS.filter((u) => u.full_name.toLowerCase() === name.toLowerCase());
      return matches.length === 1 ? matches[0] : undefined;
    },
    userById: (id) => USERS.find((u) => u.id === id),
    groupByName: (name) => GROUPS.find((g) => g.name === name),
    streamByName: (name) => STREAMS.find((s) => s.name === name),
    customEmojiByName: (name) =>
      name === 'green_tick' ? { id: '1', name: 'green_tick', source_url: '/user_avatars/2/emoji/images/1.png' } : undefined,
    translateEmoticons: false,
    realmUrl: 'http://zulip.testserver',
    // Zulip's test server: previews on, videos through its camo test key.
    inlineImagePreview: true,
    camo: { uri: 'https://external-content.zulipcdn.net/external_content/', key: 'dummy' },
    ...overrides,
  };
}

// Cases whose Zulip output Parley does not reproduce, with the reason.
const KNOWN_DIFFERENCES: Record<string, string> = {};

interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  translate_emoticons?: boolean;
  backend_only_rendering?: boolean;
}

function linkifyExpected(format: string, url: string): string {
  if (!url) return format;
  let href: string;
  if (url.startsWith('http')) href = url;
  else if (url.includes('@')) href = `mailto:${url}`;
  else href = `http://${url}`;
  return format.replace('%s', `<a href="${href}">${url}</a>`);
}

test('Zulip markdown reference cases', (t) => {
  if (!existsSync(CASES_PATH)) {
    t.skip(`no reference cases at ${CASES_PATH}`);
    return;
  }
  const data = JSON.parse(readFileSync(CASES_PATH, 'utf8')) as {
    regular_tests: RegularCase[];
    linkify_tests: Array<[string, string, string]>;
  };
  const failures: string[] = [];
  const nowPassing: string[] = [];
  let exact = 0;
  let total = 0;
  for (const c of data.regular_tests) {
    total++;
    const ctx = makeCtx({ translateEmoticons: c.translate_emoticons ?? false });
    const got = renderMarkdown(c.input, ctx).html;
    const ok = got === c.expected_output;
    if (ok) exact++;
    if (c.name in KNOWN_DIFFERENCES) {
      if (ok) nowPassing.push(c.name);
    } else if (!ok) {
      failures.push(`${c.name}\n  input:    ${JSON.stringify(c.input)}\n  expected: ${JSON.stringify(c.expected_output)}\n  got:      ${JSON.stringify(got)}`);
    }
  }
  for (const [input, format, url] of data.linkify_tests) {
    total++;
    const expected = linkifyExpected(format, url);
    const got = renderMarkdown(input, makeCtx()).html;
    if (got === expected) exact++;
    else failures.push(`linkify ${JSON.stringify(input)}\n  expected: ${JSON.stringify(expected)}\n  got:      ${JSON.stringify(got)}`);
  }
  console.log(`markdown cases: ${exact}/${total} exact`);
  if (nowPassing.length) console.log(`known differences now passing (remove from KNOWN_DIFFERENCES): ${nowPassing.join(', ')}`);
  assert.deepEqual(failures, [], failures.join('\n\n'));
});

test('user mentions set mention flags', () => {
  const r = renderMarkdown('hi @**King Hamlet** and @_**Othello, the Moor of Venice**', makeCtx());
  assert.equal(
    r.html,
    '<p>hi <span class="user-mention" data-user-id="10">@King Hamlet</span> and ' +
      '<span class="user-mention silent" data-user-id="12">Othello, the Moor of Venice</span></p>',
  );
  assert.deepEqual([...r.mentionedUserIds], [10]);
  assert.equal(r.wildcardMention, null);

  const byId = renderMarkdown('@**King Hamlet|10** @**|12** @**Wrong Name|10**', makeCtx());
  assert.deepEqual([...byId.mentionedUserIds].sort(), [10, 12]);
  assert.match(byId.html, /@<strong>Wrong Name\|10<\/strong>/);

  // Ambiguous names are not mentions; the id syntax disambiguates.
  const twin = renderMarkdown('@**Mark Twin** @**Mark Twin|14**', makeCtx());
  assert.deepEqual([...twin.mentionedUserIds], [14]);

  const unknown = renderMarkdown('@**Nobody**', makeCtx());
  assert.equal(unknown.html, '<p>@<strong>Nobody</strong></p>');
  assert.equal(unknown.mentionedUserIds.size, 0);
});

test('group mentions and channel links', () => {
  const r = renderMarkdown('@*support* @_*backend* #**Denmark** #**Verona>a.b c**', makeCtx());
  assert.equal(
    r.html,
    '<p><span class="user-group-mention" data-user-group-id="21">@support</span> ' +
      '<span class="user-group-mention silent" data-user-group-id="22">backend</span> ' +
      '<a class="stream" data-stream-id="1" href="/#narrow/stream/1-Denmark">#Denmark</a> ' +
      '<a class="stream-topic" data-stream-id="2" href="/#narrow/stream/2-Verona/topic/a.2Eb.20c">#Verona &gt; a.b c</a></p>',
  );
  assert.deepEqual([...r.mentionedGroupIds], [21]);
});

test('topic links carry the topic\'s latest message; message links and the empty topic', () => {
  const latest = new Map([['2\na.b c', 57], ['1\n', 88]]);
  const ctx = makeCtx({
    topicLatestMessageId: (streamId, topic) => latest.get(`${streamId}\n${topic}`),
    emptyTopicDisplayName: 'general chat',
  });
  const cases: Array<[string, string]> = [
    // With messages: /with/<latest message ID> (FL 347, the latest since FL 400); without: the bare topic.
    ['#**Verona>a.b c**', '<p><a class="stream-topic" data-stream-id="2" href="/#narrow/stream/2-Verona/topic/a.2Eb.20c/with/57">#Verona &gt; a.b c</a></p>'],
    ['#**Verona>quiet**', '<p><a class="stream-topic" data-stream-id="2" href="/#narrow/stream/2-Verona/topic/quiet">#Verona &gt; quiet</a></p>'],
    // The empty topic ("general chat", FL 346), shown by its display name in <em>.
    ['#**Denmark>**', '<p><a class="stream-topic" data-stream-id="1" href="/#narrow/stream/1-Denmark/topic//with/88">#Denmark &gt; <em>general chat</em></a></p>'],
    // Message links (FL 319): class message-link, no data-stream-id, /near/<id>.
    ['see #**Verona>a.b c@123**.', '<p>see <a class="message-link" href="/#narrow/stream/2-Verona/topic/a.2Eb.20c/near/123">#Verona &gt; a.b c @ 💬</a>.</p>'],
    ['#**Denmark>@7**', '<p><a class="message-link" href="/#narrow/stream/1-Denmark/topic//near/7">#Denmark &gt; <em>general chat</em> @ 💬</a></p>'],
    ['#**Verona>mail@example.com@9**', '<p><a class="message-link" href="/#narrow/stream/2-Verona/topic/mail.40example.2Ecom/near/9">#Verona &gt; mail@example.com @ 💬</a></p>'],
    // Not a message ID: a topic link whose topic ends in "@x".
    ['#**Verona>a@x**', '<p><a class="stream-topic" data-stream-id="2" href="/#narrow/stream/2-Verona/topic/a.40x">#Verona &gt; a@x</a></p>'],
    // Unknown channels are no links.
    ['#**Nowhere>t@1**', '<p>#<strong>Nowhere&gt;t@1</strong></p>'],
  ];
  for (const [input, expected] of cases) assert.equal(renderMarkdown(input, ctx).html, expected, input);
});

test('image syntax on an uploaded image is its thumbnail in place (FL 437)', () => {
  const uploads = new Map([
    ['2/ab/cat.png', { width: 1050, height: 700, frames: 1, contentType: 'image/png' }],
    ['2/cd/spin.gif', { width: 300, height: 200, frames: 4, contentType: 'image/gif' }],
    ['2/ef/scan.tiff', { width: 800, height: 600, frames: 1, contentType: 'image/tiff' }],
  ]);
  const ctx = makeCtx({ uploadImage: (pathId) => uploads.get(pathId) });
  const cat = renderMarkdown('a ![my cat](/user_uploads/2/ab/cat.png) b', ctx);
  assert.equal(
    cat.html,
    '<p>a <img alt="my cat" class="inline-image" data-original-content-type="image/png" data-original-dimensions="1050x700" ' +
      'data-original-src="/user_uploads/2/ab/cat.png" src="/user_uploads/thumbnail/2/ab/cat.png/840x560.webp"> b</p>',
  );
  assert.equal(cat.hasImage, true);
  assert.equal(cat.hasAttachment, true);
  assert.equal(
    renderMarkdown('![](/user_uploads/2/cd/spin.gif)', ctx).html,
    '<p><img alt="" class="inline-image" data-animated="true" data-original-content-type="image/gif" data-original-dimensions="300x200" ' +
      'data-original-src="/user_uploads/2/cd/spin.gif" src="/user_uploads/thumbnail/2/cd/spin.gif/840x560-anim.webp"></p>',
  );
  assert.equal(
    renderMarkdown('![scan](/user_uploads/2/ef/scan.tiff)', ctx).html,
    '<p><img alt="scan" class="inline-image" data-original-content-type="image/tiff" data-original-dimensions="800x600" ' +
      'data-original-src="/user_uploads/2/ef/scan.tiff" data-transcoded-image="4032x3024.webp" src="/user_uploads/thumbnail/2/ef/scan.tiff/840x560.webp"></p>',
  );
});

test('a YouTube link gets its video\'s thumbnail after it, as Zulip\'s (the link kept; not a playlist; off with previews)', () => {
  const ctx = makeCtx();
  const camo = (id: string) => {
    const url = `https://i.ytimg.com/vi/${id}/default.jpg`;
    return `https://external-content.zulipcdn.net/external_content/${createHmac('sha1', 'dummy').update(url).digest('hex')}/${Buffer.from(url).toString('hex')}`;
  };
  const preview = (href: string, id: string) => `<div class="youtube-video message_inline_image"><a data-id="${id}" href="${href}"><img src="${camo(id)}"></a></div>`;
  // Zulip's test_inline_youtube.
  const cases: Array<[string, string]> = [
    ['Check out the debate: http://www.youtube.com/watch?v=hx1mjT73xYE', '<p>Check out the debate: <a href="http://www.youtube.com/watch?v=hx1mjT73xYE">http://www.youtube.com/watch?v=hx1mjT73xYE</a></p>\n' + preview('http://www.youtube.com/watch?v=hx1mjT73xYE', 'hx1mjT73xYE')],
    ['http://www.youtube.com/watch?v=hx1mjT73xYE', '<p><a href="http://www.youtube.com/watch?v=hx1mjT73xYE">http://www.youtube.com/watch?v=hx1mjT73xYE</a></p>\n' + preview('http://www.youtube.com/watch?v=hx1mjT73xYE', 'hx1mjT73xYE')],
    ['https://youtu.be/hx1mjT73xYE', '<p><a href="https://youtu.be/hx1mjT73xYE">https://youtu.be/hx1mjT73xYE</a></p>\n' + preview('https://youtu.be/hx1mjT73xYE', 'hx1mjT73xYE')],
    ['https://www.youtube.com/playlist?list=PL8dPuuaLjXtNlUrzyH5r6jN9ulIgZBpdo', '<p><a href="https://www.youtube.com/playlist?list=PL8dPuuaLjXtNlUrzyH5r6jN9ulIgZBpdo">https://www.youtube.com/playlist?list=PL8dPuuaLjXtNlUrzyH5r6jN9ulIgZBpdo</a></p>'],
    [
      'https://www.youtube.com/watch?v=O5nskjZ_GoI&list=PL8dPuuaLjXtNlUrzyH5r6jN9ulIgZBpdo',
      '<p><a href="https://www.youtube.com/watch?v=O5nskjZ_GoI&amp;list=PL8dPuuaLjXtNlUrzyH5r6jN9ulIgZBpdo">https://www.youtube.com/watch?v=O5nskjZ_GoI&amp;list=PL8dPuuaLjXtNlUrzyH5r6jN9ulIgZBpdo</a></p>\n' +
        preview('https://www.youtube.com/watch?v=O5nskjZ_GoI&amp;list=PL8dPuuaLjXtNlUrzyH5r6jN9ulIgZBpdo', 'O5nskjZ_GoI'),
    ],
    ['http://www.youtube.com/watch_videos?video_ids=nOJgD4fcZhI,i96UO8-GFvw', '<p><a href="http://www.youtube.com/watch_videos?video_ids=nOJgD4fcZhI,i96UO8-GFvw">http://www.youtube.com/watch_videos?video_ids=nOJgD4fcZhI,i96UO8-GFvw</a></p>\n' + preview('http://www.youtube.com/watch_videos?video_ids=nOJgD4fcZhI,i96UO8-GFvw', 'nOJgD4fcZhI')],
    // Short and embed paths; a named link keeps its name and the preview has no title.
    ['[the talk](https://www.youtube.com/shorts/abc_DEF-123)', '<p><a href="https://www.youtube.com/shorts/abc_DEF-123">the talk</a></p>\n' + preview('https://www.youtube.com/shorts/abc_DEF-123', 'abc_DEF-123')],
    ['https://m.youtube.com/embed/xyz', '<p><a href="https://m.youtube.com/embed/xyz">https://m.youtube.com/embed/xyz</a></p>\n' + preview('https://m.youtube.com/embed/xyz', 'xyz')],
    // Not a video ID; another site; a quote.
    ['https://youtu.be/not%20an%20id', '<p><a href="https://youtu.be/not%20an%20id">https://youtu.be/not%20an%20id</a></p>'],
    ['https://www.youtube.example.com/watch?v=hx1mjT73xYE', '<p><a href="https://www.youtube.example.com/watch?v=hx1mjT73xYE">https://www.youtube.example.com/watch?v=hx1mjT73xYE</a></p>'],
    ['> https://youtu.be/hx1mjT73xYE', '<blockquote>\n<p><a href="https://youtu.be/hx1mjT73xYE">https://youtu.be/hx1mjT73xYE</a></p>\n</blockquote>'],
  ];
  for (const [input, expected] of cases) assert.equal(renderMarkdown(input, ctx).html, expected, input);
  assert.equal(renderMarkdown('https://youtu.be/hx1mjT73xYE', makeCtx({ inlineImagePreview: false })).html, '<p><a href="https://youtu.be/hx1mjT73xYE">https://youtu.be/hx1mjT73xYE</a></p>');
  // Without an image proxy, the thumbnail's own address.
  assert.match(renderMarkdown('https://youtu.be/hx1mjT73xYE', makeCtx({ camo: undefined })).html, /<img src="https:\/\/i\.ytimg\.com\/vi\/hx1mjT73xYE\/default\.jpg">/);
});

test('website previews: an embed from what is known of a page; unknown links listed; YouTube and Vimeo links named after their video (Zulip\'s url_embed_data)', () => {
  const pages: Record<string, { title?: string; description?: string; image?: string } | null> = {
    'http://test.org/': { title: 'The Rock', description: 'Description text', image: 'http://ia.media-imdb.com/images/rock "1".jpg' },
    'https://www.youtube.com/watch?v=hx1mjT73xYE': { title: 'Clearer Code at Scale' },
    'https://vimeo.com/246979354': { title: 'A film', image: 'https://i.vimeocdn.com/video/1.jpg' },
    'http://empty.example.com/': null,
  };
  const ctx = makeCtx({ camo: undefined, urlEmbedData: (url) => pages[url] });
  const r = renderMarkdown('http://test.org/ and http://empty.example.com/ and http://new.example.com/ and [ours](/user_uploads/1/a/b.txt)', ctx);
  assert.equal(
    r.html,
    '<p><a href="http://test.org/">http://test.org/</a> and <a href="http://empty.example.com/">http://empty.example.com/</a> and <a href="http://new.example.com/">http://new.example.com/</a> and <a href="/user_uploads/1/a/b.txt">ours</a></p>\n' +
      '<div class="message_embed"><a class="message_embed_image" href="http://test.org/" style="background-image: url(&quot;http://ia.media-imdb.com/images/rock \\&quot;1\\&quot;.jpg&quot;)"></a><div class="data-container"><div class="message_embed_title"><a href="http://test.org/" title="The Rock">The Rock</a></div><div class="message_embed_description">Description text</div></div></div>',
  );
  assert.deepEqual(r.linksForPreview, ['http://new.example.com/']);
  const yt = renderMarkdown('https://www.youtube.com/watch?v=hx1mjT73xYE', ctx);
  assert.equal(
    yt.html,
    '<p><a href="https://www.youtube.com/watch?v=hx1mjT73xYE">YouTube - Clearer Code at Scale</a></p>\n<div class="youtube-video message_inline_image"><a data-id="hx1mjT73xYE" href="https://www.youtube.com/watch?v=hx1mjT73xYE"><img src="https://i.ytimg.com/vi/hx1mjT73xYE/default.jpg"></a></div>',
  );
  assert.match(renderMarkdown('https://vimeo.com/246979354', ctx).html, /^<p><a href="https:\/\/vimeo\.com\/246979354">Vimeo - A film<\/a><\/p>\n<div class="message_embed">/);
  // A named link keeps its name; without website previews nothing is listed.
  assert.match(renderMarkdown('[the talk](https://www.youtube.com/watch?v=hx1mjT73xYE)', ctx).html, /^<p><a href="[^"]+">the talk<\/a><\/p>/);
  assert.equal(renderMarkdown('http://new.example.com/', makeCtx()).linksForPreview, undefined);
});

test('wildcard mentions', () => {
  for (const w of ['all', 'everyone', 'stream', 'channel']) {
    const r = renderMarkdown(`@**${w}** hi`, makeCtx());
    assert.equal(r.wildcardMention, 'all', w);
    assert.equal(r.html, `<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${w}</span> hi</p>`);
  }
  assert.equal(renderMarkdown('@_**everyone**', makeCtx()).html, '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">everyone</span></p>');
  assert.equal(renderMarkdown('@_**topic**', makeCtx()).html, '<p><span class="topic-mention silent">topic</span></p>');
  const topic = renderMarkdown('@**topic**', makeCtx());
  assert.equal(topic.wildcardMention, 'topic');
  assert.equal(topic.html, '<p><span class="topic-mention">@topic</span></p>');
  assert.equal(renderMarkdown('@_**all**', makeCtx()).wildcardMention, null);
  // Mentions inside quotes are silenced.
  const quoted = renderMarkdown('> @**all** @**King Hamlet**', makeCtx());
  assert.equal(quoted.wildcardMention, null);
  assert.equal(quoted.mentionedUserIds.size, 0);
});

test('HTML is escaped and dangerous links are not linked', () => {
  const cases: Array<[string, string]> = [
    ['<script>alert(1)</script>', '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>'],
    ['<img src=x onerror=alert(1)>', '<p>&lt;img src=x onerror=alert(1)&gt;</p>'],
    ['[x](javascript:alert(1))', '<p>[x](javascript:alert(1))</p>'],
    ['[x](http://a.com/"onmouseover="alert(1))', '<p><a href="http://a.com/&quot;onmouseover=&quot;alert(1)">x</a></p>'],
    ['`<b>`', '<p><code>&lt;b&gt;</code></p>'],
    ['**<i>x</i>**', '<p><strong>&lt;i&gt;x&lt;/i&gt;</strong></p>'],
  ];
  for (const [input, expected] of cases) assert.equal(renderMarkdown(input, makeCtx()).html, expected, input);
  for (const input of ['<script>', '"><svg onload=alert(1)>', '```\n</code><script>\n```', '[a](<javascript:x>)']) {
    assert.doesNotMatch(renderMarkdown(input, makeCtx()).html, /<(script|svg|img)/i, input);
  }
});

test('message flags', () => {
  const ctx = makeCtx();
  assert.equal(renderMarkdown('/me waves', ctx).isMeMessage, true);
  assert.equal(renderMarkdown('me waves', ctx).isMeMessage, false);
  assert.equal(renderMarkdown('see https://example.com', ctx).hasLink, true);
  assert.equal(renderMarkdown('plain', ctx).hasLink, false);
  const up = renderMarkdown('[cat.png](/user_uploads/2/ab/cat.png)', ctx);
  assert.equal(up.hasAttachment, true);
  assert.equal(up.hasImage, true);
  assert.equal(renderMarkdown('[doc](/user_uploads/2/ab/a.pdf)', ctx).hasImage, false);
});

test('custom and zulip emoji', () => {
  assert.equal(
    renderMarkdown(':green_tick:', makeCtx()).html,
    '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="green tick"></p>',
  );
});

test('emoji lookups', () => {
  assert.deepEqual(emojiByName('smile'), { name: 'smile', code: '1f642' });
  assert.deepEqual(emojiByName('poop'), { name: 'poop', code: '1f4a9' });
  assert.equal(emojiByName('skin-tone-2'), undefined);
  assert.equal(emojiByName('fried_egg'), undefined);
  assert.deepEqual(emojiByCode('0023-20e3'), { name: 'hash', code: '0023-20e3' });
  assert.equal(emojiByCode('1f642')?.name, 'smile');
  assert.deepEqual(nameForUnicodeSequence('💩'), { name: 'poop', code: '1f4a9' });
  assert.deepEqual(nameForUnicodeSequence('#️⃣'), { name: 'hash', code: '0023-20e3' });
  assert.equal(nameForUnicodeSequence('↔'), undefined);
  assert.deepEqual(checkUnicodeEmoji('smile', '1f642'), { ok: true });
  assert.deepEqual(checkUnicodeEmoji('smile', '1f600'), { ok: false, error: 'Invalid emoji name.' });
  assert.deepEqual(checkUnicodeEmoji('skin-tone-2', '1f3fb'), { ok: false, error: 'Invalid emoji code.' });
});

test('code blocks carry Pygments token classes (Prism grammars mapped to Pygments names)', () => {
  const py = renderMarkdown('```python\nname = f"hi {user}"\n@decorator\nclass Foo(Bar):\n    pass  # note\nfoo(0x1F, 2.5, None)\n```', makeCtx()).html;
  assert.equal(
    py,
    '<div class="codehilite" data-code-language="Python"><pre><span></span><code>' +
      '<span class="n">name</span> <span class="o">=</span> <span class="sa">f</span><span class="s2">&quot;hi </span><span class="p">{</span><span class="n">user</span><span class="p">}</span><span class="s2">&quot;</span>\n' +
      '<span class="nd">@decorator</span>\n' +
      '<span class="k">class</span> <span class="nc">Foo</span><span class="p">(</span><span class="n">Bar</span><span class="p">):</span>\n' +
      '    <span class="k">pass</span>  <span class="c1"># note</span>\n' +
      '<span class="n">foo</span><span class="p">(</span><span class="mh">0x1F</span><span class="p">,</span> <span class="mf">2.5</span><span class="p">,</span> <span class="kc">None</span><span class="p">)</span>\n' +
      '</code></pre></div>',
  );
  // A multi-line token is closed and reopened at each line break, as Pygments does.
  const doc = renderMarkdown('```py\n"""two\nlines"""\n```', makeCtx()).html;
  assert.ok(doc.includes('<span class="s2">&quot;&quot;&quot;two</span>\n<span class="s2">lines&quot;&quot;&quot;</span>\n'), doc);
  const json = renderMarkdown('```json\n{"a": [1, true, null]}\n```', makeCtx()).html;
  assert.ok(json.includes('<span class="p">{</span><span class="nt">&quot;a&quot;</span><span class="o">:</span> <span class="p">[</span><span class="mi">1</span><span class="p">,</span> <span class="kc">true</span><span class="p">,</span> <span class="kc">null</span><span class="p">]}</span>'), json);
  const diff = renderMarkdown('```diff\n- old\n+ new\n```', makeCtx()).html;
  assert.ok(diff.includes('<span class="gd">- old</span>\n<span class="gi">+ new</span>'), diff);
  // Languages without a grammar stay plain, HTML escaped.
  assert.equal(
    renderMarkdown('```inventedlanguage\n<b>x</b>\n```', makeCtx()).html,
    '<div class="codehilite" data-code-language="inventedlanguage"><pre><span></span><code>&lt;b&gt;x&lt;/b&gt;\n</code></pre></div>',
  );
});
