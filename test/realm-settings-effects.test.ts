/**
 * What organization settings changed through PATCH /realm do: read receipts,
 * topics, code block language, edit history visibility, invitations (allowed
 * domains, disposable addresses), full members (waiting period) and message
 * retention.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, assertError, assertSuccess, openQueue, type Account, type TestServer } from './helpers.ts';
import { ROLE } from '../src/store/users.ts';
import { deleteExpiredMessages } from '../src/actions/retention.ts';

let t: TestServer;
let member: Account;
let other: Account;

before(async () => {
  t = await startTestServer();
  member = await t.makeUser({ role: ROLE.MEMBER });
  other = await t.makeUser({ role: ROLE.MEMBER });
});
after(() => t.close());

const c = (a: Account) => t.client(a);
const setting = async (params: Record<string, unknown>) => assertSuccess(await c(t.owner).patch('/realm', params));
const send = async (a: Account, topic: string, content: string, to = 'general') => assertSuccess(await c(a).post('/messages', { type: 'stream', to, topic, content })).id as number;

test('enable_read_receipts turns GET /messages/{id}/read_receipts on and off', async () => {
  const id = await send(member, 'receipts', 'hello');
  // On in a new organization.
  assert.ok(Array.isArray(assertSuccess(await c(other).get(`/messages/${id}/read_receipts`)).user_ids));
  await setting({ enable_read_receipts: false });
  assertError(await c(other).get(`/messages/${id}/read_receipts`), 400, 'BAD_REQUEST', 'Read receipts are disabled in this organization.');
  await setting({ enable_read_receipts: true });
  assert.ok(Array.isArray(assertSuccess(await c(other).get(`/messages/${id}/read_receipts`)).user_ids));
});

test('topics_policy disable_empty_topic: messages need a topic', async () => {
  await setting({ topics_policy: 'disable_empty_topic' });
  assertError(
    await c(member).post('/messages', { type: 'stream', to: 'general', topic: '', content: 'x' }),
    400,
    'BAD_REQUEST',
    'Sending messages to the general chat is not allowed in this organization.',
  );
  await setting({ topics_policy: 'allow_empty_topic' });
  await send(member, '', 'no topic is fine again');
});

test('default_code_block_language: fenced code without a language gets it', async () => {
  const plain = await send(member, 'code', '```\nprint(1)\n```');
  assert.doesNotMatch(assertSuccess(await c(member).get(`/messages/${plain}`)).message.content, /data-code-language/);
  await setting({ default_code_block_language: 'python' });
  const id = await send(member, 'code', '```\nprint(1)\n```');
  const html = assertSuccess(await c(member).get(`/messages/${id}`)).message.content;
  assert.match(html, /<div class="codehilite" data-code-language="Python">/);
  // A block that names its language keeps it.
  const js = await send(member, 'code', '```js\nx\n```');
  assert.match(assertSuccess(await c(member).get(`/messages/${js}`)).message.content, /data-code-language="JavaScript"/);
  await setting({ default_code_block_language: '' });
});

test('message_edit_history_visibility_policy: all, moves only, none', async () => {
  const id = await send(member, 'history', 'first');
  assertSuccess(await c(member).patch(`/messages/${id}`, { content: 'second' }));
  assertSuccess(await c(member).patch(`/messages/${id}`, { topic: 'history moved' }));
  const all = assertSuccess(await c(other).get(`/messages/${id}/history`)).message_history;
  assert.equal(all.length, 3);
  assert.equal(all[1].prev_content, 'first');

  await setting({ message_edit_history_visibility_policy: 'moves' });
  const moves = assertSuccess(await c(other).get(`/messages/${id}/history`)).message_history;
  assert.equal(moves.length, 2);
  assert.equal(moves[1].prev_topic, 'history');
  assert.equal(moves[1].topic, 'history moved');
  for (const v of moves) {
    assert.equal(v.prev_content, undefined);
    assert.equal(v.content, 'second');
  }
  const msg = assertSuccess(await c(other).get(`/messages/${id}`)).message;
  assert.deepEqual(
    msg.edit_history.map((e: Record<string, unknown>) => Object.keys(e).sort()),
    [['prev_topic', 'timestamp', 'topic', 'user_id']],
  );

  await setting({ message_edit_history_visibility_policy: 'none' });
  assertError(await c(other).get(`/messages/${id}/history`), 400, 'BAD_REQUEST', 'Message edit history is disabled in this organization');
  assert.equal(assertSuccess(await c(other).get(`/messages/${id}`)).message.edit_history, undefined);
  await setting({ message_edit_history_visibility_policy: 'all' });
});

test('invitations follow emails_restricted_to_domains (with the allowed domains) and disallow_disposable_email_addresses', async () => {
  const invite = (emails: string) => c(t.owner).post('/invites', { invitee_emails: emails, stream_ids: [] });
  // Disposable addresses are refused by default.
  const disposable = await invite('someone@mailinator.com');
  assertError(disposable, 400, 'INVITATION_FAILED', "Some emails did not validate, so we didn't send any invitations.");
  assert.deepEqual(disposable.body.errors, [['someone@mailinator.com', 'Please use your real email address.', false]]);
  await setting({ disallow_disposable_email_addresses: false });
  assertSuccess(await invite('someone@mailinator.com'));

  assertSuccess(await c(t.owner).post('/realm/domains', { domain: 'example.org', allow_subdomains: false }));
  assertSuccess(await c(t.owner).post('/realm/domains', { domain: 'corp.test', allow_subdomains: true }));
  await setting({ emails_restricted_to_domains: true });
  const refused = await invite('a@elsewhere.com, b+tag@example.org, c@sub.example.org');
  assertError(refused, 400, 'INVITATION_FAILED', "Some emails did not validate, so we didn't send any invitations.");
  assert.deepEqual(refused.body.errors, [
    ['a@elsewhere.com', 'Outside your domain.', false],
    ['b+tag@example.org', 'Email addresses containing + are not allowed.', false],
    ['c@sub.example.org', 'Outside your domain.', false],
  ]);
  assertSuccess(await invite('d@example.org, e@corp.test, f@team.corp.test'));
  await setting({ emails_restricted_to_domains: false, disallow_disposable_email_addresses: true });
});

test('waiting_period_threshold decides who is a full member (role:fullmembers), with user_group events', async () => {
  const groups = assertSuccess(await c(t.owner).get('/user_groups')).user_groups;
  const id = (n: string) => groups.find((g: any) => g.name === n).id;
  const full = id('role:fullmembers');
  const plain = id('role:members');
  await setting({ can_create_public_channel_group: { new: full } });
  const canCreate = async (a: Account) => assertSuccess(await c(a).post('/register', { fetch_event_types: ['realm_user'] })).can_create_public_streams;
  assert.equal(await canCreate(member), true);

  const q = await openQueue(c(other), { event_types: ['user_group'] });
  await setting({ waiting_period_threshold: 10 });
  // Both test members joined just now: no longer full members.
  const evs = (await q.ofType('user_group')).map(({ id: _id, ...e }) => e);
  assert.deepEqual(
    evs.map((e) => [e.op, e.group_id]),
    // As Zulip: members stay direct members of role:members; only role:fullmembers changes.
    [['remove_members', full]],
  );
  assert.ok((evs[0].user_ids as number[]).includes(member.id));
  assert.equal(await canCreate(member), false);
  assertError(
    await c(member).post('/users/me/subscriptions', { subscriptions: [{ name: 'new-member-channel' }] }),
    400,
    'BAD_REQUEST',
    'Insufficient permission',
  );
  const reg = assertSuccess(await c(member).post('/register', { fetch_event_types: ['realm_user_groups'] }));
  const fullGroup = reg.realm_user_groups.find((g: any) => g.id === full);
  assert.ok(!fullGroup.members.includes(member.id));
  assert.ok(reg.realm_user_groups.find((g: any) => g.id === plain).members.includes(member.id));
  // The owner (joined just now too) stays a full member through the roles above members.
  assert.equal(await canCreate(t.owner), true);

  await setting({ waiting_period_threshold: 0 });
  assert.deepEqual(
    (await q.ofType('user_group')).map((e) => [e.op, e.group_id]),
    [['add_members', full]],
  );
  assert.equal(await canCreate(member), true);
  await setting({ can_create_public_channel_group: { new: id('role:members') } });
});

test('message_retention_days: expired messages are deleted with delete_message and first_message_id events', async () => {
  const db = t.server.svc.store.db;
  assertSuccess(await c(t.owner).post('/users/me/subscriptions', { subscriptions: [{ name: 'retained' }], principals: [member.id, other.id] }));
  const old = await send(member, 'retention', 'old message', 'retained');
  const recent = await send(member, 'retention', 'recent message', 'retained');
  const dm = assertSuccess(await c(member).post('/messages', { type: 'direct', to: [other.id], content: 'old dm' })).id;
  const now = Date.now() / 1000;
  await db.updateTable('messages').set({ date_sent: now - 40 * 86400 }).where('id', 'in', [old, dm]).execute();
  // The channel's notice of its creation, before them, is as old.
  const notice = assertSuccess(await c(member).get('/messages', { anchor: 'oldest', num_before: 0, num_after: 1, narrow: [{ operator: 'channel', operand: 'retained' }] })).messages[0];
  assert.equal(notice.sender_full_name, 'Notification Bot');
  await db.updateTable('messages').set({ date_sent: now - 40 * 86400 }).where('id', '=', notice.id).execute();
  // Nothing expires while retention is unlimited.
  assert.equal(await deleteExpiredMessages(t.server.svc), 0);

  const streams = assertSuccess(await c(member).get('/streams')).streams;
  const general = streams.find((s: any) => s.name === 'retained');
  const q = await openQueue(c(other), { event_types: ['delete_message', 'stream'], client_capabilities: { bulk_message_deletion: true } });
  await setting({ message_retention_days: 30 });
  const deleted = await deleteExpiredMessages(t.server.svc);
  await t.eventsDelivered();
  assert.ok(deleted >= 2, `deleted ${deleted}`);
  assertError(await c(member).get(`/messages/${old}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertError(await c(member).get(`/messages/${dm}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
  assertSuccess(await c(member).get(`/messages/${recent}`));
  const evs = await q.drain();
  const del = evs.filter((e) => e.type === 'delete_message');
  assert.ok(del.some((e) => (e.message_ids as number[]).includes(old) && e.message_type === 'stream'));
  assert.ok(del.some((e) => (e.message_ids as number[]).includes(dm) && e.message_type === 'private'));
  const first = evs.find((e) => e.type === 'stream' && e.property === 'first_message_id' && (e.stream_id === general.stream_id));
  assert.ok(first, 'first_message_id update');
  assert.ok((first.value as number) > old);

  // A channel's own retention wins over the organization's: -1 keeps everything.
  const kept = await send(member, 'retention', 'kept forever', 'retained');
  await db.updateTable('messages').set({ date_sent: now - 40 * 86400 }).where('id', '=', kept).execute();
  assertSuccess(await c(t.owner).patch(`/streams/${general.stream_id}`, { message_retention_days: JSON.stringify('unlimited') }));
  assert.equal(await deleteExpiredMessages(t.server.svc), 0);
  assertSuccess(await c(member).get(`/messages/${kept}`));
  await setting({ message_retention_days: 'unlimited' });
});

test('inline_image_preview: linked images and videos (other sites\' and uploaded ones) get previews while on; /thumbnail leads to the image', async () => {
  const img = 'https://images.example.com/cat.png';
  const id = await send(member, 'previews', `look ${img}\nand https://videos.example.com/clip.mp4`);
  const html = assertSuccess(await c(other).get(`/messages/${id}`)).message.content;
  const q = encodeURIComponent(img);
  assert.equal(
    html,
    `<p>look <a href="${img}">${img}</a><br>\nand <a href="https://videos.example.com/clip.mp4">https://videos.example.com/clip.mp4</a></p>\n` +
      `<div class="message_inline_image"><a href="${img}"><img data-src-fullsize="/thumbnail?url=${q}&amp;size=full" src="/thumbnail?url=${q}&amp;size=thumbnail"></a></div>` +
      '<div class="message_inline_image message_inline_video"><a href="https://videos.example.com/clip.mp4"><video data-video-original-url="https://videos.example.com/clip.mp4" preload="metadata" src="https://videos.example.com/clip.mp4"></video></a></div>',
  );
  // has:image follows the preview.
  const narrow = [{ operator: 'has', operand: 'image' }, { operator: 'topic', operand: 'previews' }];
  assert.deepEqual(assertSuccess(await c(other).get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow })).messages.map((m: any) => m.id), [id]);

  const thumb = await fetch(`${t.url}/thumbnail?url=${q}&size=thumbnail`, {
    redirect: 'manual',
    headers: { Authorization: `Basic ${Buffer.from(`${other.email}:${other.apiKey}`).toString('base64')}` },
  });
  assert.equal(thumb.status, 302);
  assert.equal(thumb.headers.get('location'), img);
  assert.equal((await fetch(`${t.url}/thumbnail?url=${q}&size=thumbnail`, { redirect: 'manual' })).status, 401);

  // Links to uploaded images and videos get previews too: the image by its thumbnail, the video as it is.
  const auth = { Authorization: `Basic ${Buffer.from(`${member.email}:${member.apiKey}`).toString('base64')}` };
  const uploaded = async (name: string, type: string, data: Buffer): Promise<string> => {
    const form = new FormData();
    form.append('file', new Blob([data], { type }), name);
    const res = await fetch(`${t.url}/api/v1/user_uploads`, { method: 'POST', headers: auth, body: form });
    return ((await res.json()) as { url: string }).url;
  };
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const imagePath = await uploaded('cat.png', 'image/png', png);
  const videoPath = await uploaded('clip.mp4', 'video/mp4', Buffer.from('not really a video'));
  assert.match(imagePath, /^\/user_uploads\/\d+\/.+\/cat\.png$/);
  const withUploads = await send(member, 'previews', `[cat.png](${imagePath})\n[clip.mp4](${videoPath})`);
  const qu = encodeURIComponent(imagePath.slice(1));
  assert.equal(
    assertSuccess(await c(other).get(`/messages/${withUploads}`)).message.content,
    `<p><a href="${imagePath}">cat.png</a><br>\n<a href="${videoPath}">clip.mp4</a></p>\n` +
      `<div class="message_inline_image"><a href="${imagePath}" title="cat.png"><img data-original-content-type="image/png" data-original-dimensions="1x1" src="/user_uploads/thumbnail${imagePath.slice('/user_uploads'.length)}/840x560.webp"></a></div>` +
      `<div class="message_inline_image message_inline_video"><a href="${videoPath}" title="clip.mp4"><video data-video-original-url="${videoPath}" preload="metadata" src="${videoPath}"></video></a></div>`,
  );
  // Messages rendered before uploads had thumbnails link /thumbnail?url=user_uploads/...: it leads to the file.
  const toUpload = await fetch(`${t.url}/thumbnail?url=${qu}&size=full`, { redirect: 'manual', headers: auth });
  assert.equal(toUpload.status, 302);
  assert.equal(toUpload.headers.get('location'), imagePath);
  const file = await fetch(new URL(toUpload.headers.get('location')!, t.url), { headers: auth });
  assert.equal(file.status, 200);
  assert.deepEqual(Buffer.from(await file.arrayBuffer()), png);
  const outside = await fetch(`${t.url}/thumbnail?url=${encodeURIComponent('user_uploads/../../etc/passwd')}&size=full`, { redirect: 'manual', headers: auth });
  assert.equal(outside.status, 400);

  // A YouTube link: the video's thumbnail after it (the link kept), and has:image finds it, as Zulip's.
  const video = 'https://www.youtube.com/watch?v=hx1mjT73xYE';
  const withVideo = await send(member, 'previews', `watch ${video}`);
  assert.equal(
    assertSuccess(await c(other).get(`/messages/${withVideo}`)).message.content,
    `<p>watch <a href="${video}">${video}</a></p>\n<div class="youtube-video message_inline_image"><a data-id="hx1mjT73xYE" href="${video}"><img src="https://i.ytimg.com/vi/hx1mjT73xYE/default.jpg"></a></div>`,
  );
  const images = assertSuccess(await c(other).get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow })).messages.map((m: any) => m.id);
  assert.ok(images.includes(withVideo), `has:image: ${images.join(', ')}`);

  await setting({ inline_image_preview: false });
  const plain = await send(member, 'previews', img);
  assert.equal(assertSuccess(await c(other).get(`/messages/${plain}`)).message.content, `<p><a href="${img}">${img}</a></p>`);
  const plainVideo = await send(member, 'previews', video);
  assert.equal(assertSuccess(await c(other).get(`/messages/${plainVideo}`)).message.content, `<p><a href="${video}">${video}</a></p>`);
  await setting({ inline_image_preview: true });
});
