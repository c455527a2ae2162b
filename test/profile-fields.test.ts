/** Custom profile fields: definitions (admins), users' values, events and /register state. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startTestServer, assertError, assertSuccess, assertSchema, assertComponent, openQueue,
  type TestServer, type Account, type Client,
} from './helpers.ts';
import { ROLE } from '../src/store/users.ts';
import { updateProfileData } from '../src/actions/profile-fields.ts';

let t: TestServer;
let owner: Client;
let admin: Account, moderator: Account, member: Account, guest: Account, other: Account, bot: Account;

before(async () => {
  t = await startTestServer();
  owner = t.client(t.owner);
  admin = await t.makeUser({ role: ROLE.ADMINISTRATOR, name: 'Ada Admin' });
  moderator = await t.makeUser({ role: ROLE.MODERATOR, name: 'Mo Moderator' });
  member = await t.makeUser({ role: ROLE.MEMBER, name: 'Mem Member' });
  guest = await t.makeUser({ role: ROLE.GUEST, name: 'Gus Guest' });
  other = await t.makeUser({ role: ROLE.MEMBER, name: 'Otto Other' });
  bot = await t.makeUser({ isBot: true, botOwnerId: member.id, name: 'Some Bot' });
});
after(() => t.close());

let seq = 0;
async function createField(params: Record<string, unknown>, c: Client = owner): Promise<number> {
  const res = await c.post('/realm/profile_fields', { name: `Field ${++seq}`, ...params });
  const body = assertSuccess(res);
  assertSchema(res, 'POST', '/realm/profile_fields');
  return body.id as number;
}

const selectData = { a: { text: 'Apple', order: '1' }, b: { text: 'Banana', order: '2' } };

test('GET /realm/profile_fields: shape, order, schema; /register state and field types', async () => {
  const id = await createField({ name: 'Phone', hint: 'Your number', field_type: 1, display_in_profile_summary: true });
  const res = await t.client(guest).get('/realm/profile_fields');
  const body = assertSuccess(res);
  assertSchema(res, 'GET', '/realm/profile_fields');
  const f = body.custom_fields.find((x: any) => x.id === id);
  assert.deepEqual(f, { id, name: 'Phone', type: 1, hint: 'Your number', field_data: '', order: id, required: false, editable_by_user: true, display_in_profile_summary: true });
  for (const x of body.custom_fields) assertComponent(x, 'CustomProfileField');
  const q = await openQueue(t.client(member), { fetch_event_types: ['custom_profile_fields'] });
  assert.deepEqual(q.state.custom_profile_fields, body.custom_fields);
  assert.deepEqual(q.state.custom_profile_field_types.PRONOUNS, { id: 8, name: 'Pronouns' });
  assert.deepEqual(q.state.custom_profile_field_types.SELECT, { id: 3, name: 'List of options' });
  assert.equal(Object.keys(q.state.custom_profile_field_types).length, 8);
  // Reset summary display so later limit tests start from a known count.
  assertSuccess(await owner.patch(`/realm/profile_fields/${id}`, { display_in_profile_summary: false }));
});

test('create/update/reorder/delete are for administrators only', async () => {
  const id = await createField({ field_type: 1 });
  for (const acct of [moderator, member, guest]) {
    const c = t.client(acct);
    assertError(await c.post('/realm/profile_fields', { name: 'X', field_type: 1 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    assertError(await c.patch(`/realm/profile_fields/${id}`, { name: 'Y' }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    assertError(await c.patch('/realm/profile_fields', { order: [id] }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    assertError(await c.delete(`/realm/profile_fields/${id}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  }
  const a = t.client(admin);
  const id2 = await createField({ field_type: 2 }, a);
  assertSuccess(await a.patch(`/realm/profile_fields/${id2}`, { hint: 'h' }));
  assertSuccess(await a.delete(`/realm/profile_fields/${id2}`));
  assertSuccess(await owner.delete(`/realm/profile_fields/${id}`));
});

test('create: every field type, field_data kept only for select and external account', async () => {
  const types = [1, 2, 4, 5, 6, 8];
  for (const ft of types) {
    const id = await createField({ field_type: ft, field_data: { ignored: 'x' } });
    const f = assertSuccess(await owner.get('/realm/profile_fields')).custom_fields.find((x: any) => x.id === id);
    assert.equal(f.type, ft);
    assert.equal(f.field_data, '');
  }
  const sel = await createField({ field_type: 3, field_data: selectData, required: true, editable_by_user: false });
  const f = assertSuccess(await owner.get('/realm/profile_fields')).custom_fields.find((x: any) => x.id === sel);
  assert.equal(f.field_data, JSON.stringify(selectData));
  assert.equal(f.required, true);
  assert.equal(f.editable_by_user, false);
  const gh = await createField({ name: 'ignored', field_type: 7, field_data: { subtype: 'github' } });
  const g = assertSuccess(await owner.get('/realm/profile_fields')).custom_fields.find((x: any) => x.id === gh);
  assert.equal(g.name, 'GitHub username');
  assert.equal(g.field_data, '{"subtype":"github"}');
  const custom = await createField({ field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://example.com/u/%(username)s' } });
  assert.ok(custom > 0);
  assertError(await owner.patch(`/realm/profile_fields/${gh}`, { name: 'Other' }), 400, 'BAD_REQUEST', 'Default custom field cannot be updated.');
  assertSuccess(await owner.patch(`/realm/profile_fields/${gh}`, { name: 'GitHub username', required: true }));
});

test('create: validation errors with Zulip messages', async () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: '   ', field_type: 1 }, 'Label cannot be blank.'],
    [{ name: 'x'.repeat(41), field_type: 1 }, 'name is too long (limit: 40 characters)'],
    [{ name: 'ok', hint: 'h'.repeat(81), field_type: 1 }, 'hint is too long (limit: 80 characters)'],
    [{ name: 'ok', field_type: 99 }, 'Invalid field type.'],
    [{ name: 'ok', field_type: 3, field_data: {} }, 'Field must have at least one choice.'],
    [{ name: 'ok', field_type: 3, field_data: { a: { text: 'A', order: '1' }, b: { text: 'A', order: '2' } } }, 'Field must not have duplicate choices.'],
    [{ name: 'ok', field_type: 3, field_data: { ' ': { text: 'A', order: '1' } } }, "'value' cannot be blank."],
    [{ name: 'ok', field_type: 3, field_data: { a: { order: '1' } } }, 'text key is missing from field_data'],
    [{ name: 'ok', field_type: 3, field_data: { a: { text: '', order: '1' } } }, 'field_data["text"] cannot be blank.'],
    [{ name: 'ok', field_type: 7, field_data: { subtype: 'myspace' } }, 'Invalid external account type'],
    [{ name: 'ok', field_type: 7, field_data: { subtype: 'custom' } }, 'Custom external account must define URL pattern'],
    [{ name: 'ok', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://x.com/' } }, "URL pattern must contain '%(username)s'."],
    [{ name: 'ok', field_type: 7, field_data: {} }, 'subtype key is missing from field_data'],
    [{ name: 'ok', field_type: 6, display_in_profile_summary: true }, 'Field type not supported for display in profile summary.'],
    ...[2, 3, 4, 5, 6, 8].map((ft): [Record<string, unknown>, string] => [
      { name: 'ok', field_type: ft, field_data: ft === 3 ? selectData : {}, use_for_user_matching: true },
      'Field type not supported for use for user matching.',
    ]),
  ];
  for (const [params, msg] of cases) assertError(await owner.post('/realm/profile_fields', params), 400, 'BAD_REQUEST', msg);
  assertError(await owner.post('/realm/profile_fields', { name: 'ok' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'field_type' argument");
  assertError(await owner.post('/realm/profile_fields', { name: 'ok', field_type: 1, field_data: '[1]' }), 400, 'BAD_REQUEST', 'field_data is not a dict');
  await createField({ name: 'Unique label', field_type: 1 });
  assertError(await owner.post('/realm/profile_fields', { name: 'Unique label', field_type: 2 }), 400, 'BAD_REQUEST', 'A field with that label already exists.');
  // At most two fields in the profile summary.
  const s1 = await createField({ field_type: 1, display_in_profile_summary: true });
  const s2 = await createField({ field_type: 4, display_in_profile_summary: true });
  assertError(await owner.post('/realm/profile_fields', { name: 'third', field_type: 1, display_in_profile_summary: true }), 400, 'BAD_REQUEST',
    'Only 2 custom profile fields can be displayed in the profile summary.');
  const s3 = await createField({ field_type: 1 });
  assertError(await owner.patch(`/realm/profile_fields/${s3}`, { display_in_profile_summary: true }), 400, 'BAD_REQUEST',
    'Only 2 custom profile fields can be displayed in the profile summary.');
  assertSuccess(await owner.patch(`/realm/profile_fields/${s1}`, { display_in_profile_summary: true }));
  for (const id of [s1, s2, s3]) assertSuccess(await owner.delete(`/realm/profile_fields/${id}`));
});

test('display_in_profile_summary: allowed for a Paragraph field since feature level 476', async () => {
  const id = await createField({ name: 'About me', field_type: 2, display_in_profile_summary: true });
  const f = assertSuccess(await owner.get('/realm/profile_fields')).custom_fields.find((x: any) => x.id === id);
  assert.equal(f.display_in_profile_summary, true);
  assertSuccess(await owner.delete(`/realm/profile_fields/${id}`));
  const long = await createField({ name: 'Bio', field_type: 2 });
  assertSuccess(await owner.patch(`/realm/profile_fields/${long}`, { display_in_profile_summary: true }));
  assertSuccess(await owner.delete(`/realm/profile_fields/${long}`));
});

test('use_for_user_matching (feature level 455): short text and external account only; shown only when true; events', async () => {
  const q = await openQueue(t.client(member), { event_types: ['custom_profile_fields'] });
  const text = await createField({ name: 'Nickname', field_type: 1, use_for_user_matching: true });
  const gh = await createField({ field_type: 7, field_data: { subtype: 'twitter' }, use_for_user_matching: true });
  const plain = await createField({ name: 'Office', field_type: 1 });
  const res = await t.client(guest).get('/realm/profile_fields');
  assertSchema(res, 'GET', '/realm/profile_fields');
  const fields = assertSuccess(res).custom_fields;
  const byId = (id: number) => fields.find((x: any) => x.id === id);
  assert.deepEqual(byId(text), {
    id: text, name: 'Nickname', type: 1, hint: '', field_data: '', order: text, required: false, editable_by_user: true, use_for_user_matching: true,
  });
  assert.equal(byId(gh).use_for_user_matching, true);
  assert.equal('use_for_user_matching' in byId(plain), false);
  const evs = await q.ofType('custom_profile_fields');
  assert.equal(evs.length, 3);
  assert.equal(evs[0].fields.find((x: any) => x.id === text).use_for_user_matching, true);
  const reg = await openQueue(t.client(member), { fetch_event_types: ['custom_profile_fields'] });
  assert.deepEqual(reg.state.custom_profile_fields, fields);

  // PATCH: on and off; a default external account field may change it; other types refuse it.
  assertSuccess(await owner.patch(`/realm/profile_fields/${plain}`, { use_for_user_matching: true }));
  assertSuccess(await owner.patch(`/realm/profile_fields/${text}`, { use_for_user_matching: false }));
  assertSuccess(await owner.patch(`/realm/profile_fields/${gh}`, { use_for_user_matching: false }));
  let after = assertSuccess(await owner.get('/realm/profile_fields')).custom_fields;
  assert.equal(after.find((x: any) => x.id === plain).use_for_user_matching, true);
  assert.equal('use_for_user_matching' in after.find((x: any) => x.id === text), false);
  assert.equal('use_for_user_matching' in after.find((x: any) => x.id === gh), false);
  const date = await createField({ name: 'Birthday', field_type: 4 });
  assertError(await owner.patch(`/realm/profile_fields/${date}`, { use_for_user_matching: true }), 400, 'BAD_REQUEST',
    'Field type not supported for use for user matching.');
  assertSuccess(await owner.patch(`/realm/profile_fields/${date}`, { use_for_user_matching: false }));
  assertError(await owner.patch(`/realm/profile_fields/${plain}`, { use_for_user_matching: '"yes"' }), 400, 'BAD_REQUEST',
    'use_for_user_matching is not a boolean');
  after = assertSuccess(await owner.get('/realm/profile_fields')).custom_fields;
  assert.equal('use_for_user_matching' in after.find((x: any) => x.id === date), false);
  for (const id of [text, gh, plain, date]) assertSuccess(await owner.delete(`/realm/profile_fields/${id}`));
});

test('update: partial changes, errors, select options removed clear values; event to everyone', async () => {
  const id = await createField({ name: 'Fruit', field_type: 3, field_data: selectData });
  assertSuccess(await t.client(member).patch('/users/me/profile_data', { data: [{ id, value: 'b' }] }));
  const qm = await openQueue(t.client(member), { event_types: ['custom_profile_fields'] });
  const qg = await openQueue(t.client(guest), { event_types: ['custom_profile_fields'] });
  const res = await owner.patch(`/realm/profile_fields/${id}`, { hint: 'Pick one', field_data: { a: { text: 'Apple', order: '1' } } });
  assertSuccess(res);
  for (const q of [qm, qg]) {
    const evs = await q.ofType('custom_profile_fields');
    assert.equal(evs.length, 1);
    assert.equal(evs[0].op, undefined);
    const f = evs[0].fields.find((x: any) => x.id === id);
    assert.equal(f.hint, 'Pick one');
    assert.equal(f.name, 'Fruit');
    assert.equal(f.field_data, '{"a":{"text":"Apple","order":"1"}}');
  }
  const u = assertSuccess(await owner.get(`/users/${member.id}`, { include_custom_profile_fields: true })).user;
  assert.equal(u.profile_data[String(id)], undefined);
  assertError(await owner.patch('/realm/profile_fields/99999', { name: 'x' }), 400, 'BAD_REQUEST', 'Field id 99999 not found.');
  assertError(await owner.patch(`/realm/profile_fields/${id}`, { name: ' ' }), 400, 'BAD_REQUEST', 'Label cannot be blank.');
  assertError(await owner.patch(`/realm/profile_fields/${id}`, { field_data: {} }), 400, 'BAD_REQUEST', 'Field must have at least one choice.');
  const other2 = await createField({ name: 'Taken', field_type: 1 });
  assertError(await owner.patch(`/realm/profile_fields/${id}`, { name: 'Taken' }), 400, 'BAD_REQUEST', 'A field with that label already exists.');
  assertSuccess(await owner.delete(`/realm/profile_fields/${other2}`));
  assertSuccess(await owner.patch(`/realm/profile_fields/${id}`, { editable_by_user: false, required: true }));
  const f = assertSuccess(await owner.get('/realm/profile_fields')).custom_fields.find((x: any) => x.id === id);
  assert.equal(f.editable_by_user, false);
  assert.equal(f.required, true);
  assert.equal(f.hint, 'Pick one');
});

test('reorder: Invalid order mapping unless every field is listed; event', async () => {
  const ids = assertSuccess(await owner.get('/realm/profile_fields')).custom_fields.map((x: any) => x.id);
  assertError(await owner.patch('/realm/profile_fields', { order: ids.slice(1) }), 400, 'BAD_REQUEST', 'Invalid order mapping.');
  assertError(await owner.patch('/realm/profile_fields', {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'order' argument");
  const q = await openQueue(t.client(member), { event_types: ['custom_profile_fields'] });
  const reversed = [...ids].reverse();
  const res = await owner.patch('/realm/profile_fields', { order: reversed });
  assertSuccess(res);
  assertSchema(res, 'PATCH', '/realm/profile_fields');
  const list = assertSuccess(await owner.get('/realm/profile_fields')).custom_fields;
  assert.deepEqual(list.map((x: any) => x.id), reversed);
  assert.deepEqual(list.map((x: any) => x.order), reversed.map((_: unknown, i: number) => i));
  const evs = await q.ofType('custom_profile_fields');
  assert.equal(evs.length, 1);
  assert.deepEqual(evs[0].fields.map((x: any) => x.id), reversed);
});

test('delete: not found; removes the field and users\' values; event', async () => {
  const id = await createField({ field_type: 1 });
  assertSuccess(await t.client(member).patch('/users/me/profile_data', { data: [{ id, value: 'hello' }] }));
  assertError(await owner.delete('/realm/profile_fields/99999'), 400, 'BAD_REQUEST', 'Field id 99999 not found.');
  const q = await openQueue(t.client(guest), { event_types: ['custom_profile_fields'] });
  assertSuccess(await owner.delete(`/realm/profile_fields/${id}`));
  const evs = await q.ofType('custom_profile_fields');
  assert.equal(evs.length, 1);
  assert.ok(!evs[0].fields.some((x: any) => x.id === id));
  const u = assertSuccess(await owner.get(`/users/${member.id}`, { include_custom_profile_fields: true })).user;
  assert.equal(u.profile_data[String(id)], undefined);
});

test('PATCH /users/me/profile_data: values per field type, with Zulip messages', async () => {
  const short = await createField({ name: 'Nick', field_type: 1 });
  const long = await createField({ name: 'Bio', field_type: 2 });
  const sel = await createField({ name: 'Team', field_type: 3, field_data: selectData });
  const date = await createField({ name: 'Birthday', field_type: 4 });
  const url = await createField({ name: 'Site', field_type: 5 });
  const users = await createField({ name: 'Mentor', field_type: 6 });
  const ext = await createField({ field_type: 7, field_data: { subtype: 'twitter' } });
  const pro = await createField({ name: 'Pronouns', field_type: 8 });
  const c = t.client(member);
  const bad: Array<[number, unknown, string]> = [
    [short, 'x'.repeat(51), 'Nick is too long (limit: 50 characters)'],
    [long, 'x'.repeat(501), 'Bio is too long (limit: 500 characters)'],
    [sel, 'z', "'z' is not a valid choice for 'Team'."],
    [date, '2020-13-01', 'Birthday is not a date'],
    [date, '1 May 2020', 'Birthday is not a date'],
    [url, 'not a url', 'Site is not a URL'],
    [url, 'javascript:alert(1)', 'Site is not a URL'],
    [users, [999999], 'Invalid user ID: 999999'],
    [users, [bot.id], `User with ID ${bot.id} is a bot`],
    [users, 'abc', 'User IDs is not a list'],
    [ext, 'y'.repeat(51), 'Twitter username is too long (limit: 50 characters)'],
    [pro, 'p'.repeat(51), 'Pronouns is too long (limit: 50 characters)'],
    [short, [1], 'Nick is not a string'],
  ];
  for (const [id, value, msg] of bad) assertError(await c.patch('/users/me/profile_data', { data: [{ id, value }] }), 400, 'BAD_REQUEST', msg);
  assertError(await c.patch('/users/me/profile_data', { data: [{ id: 99999, value: 'x' }] }), 400, 'BAD_REQUEST', 'Field id 99999 not found.');
  assertError(await c.patch('/users/me/profile_data', {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'data' argument");
  assertError(await c.patch('/users/me/profile_data', { data: [{ value: 'x' }] }), 400, 'BAD_REQUEST');
  // Nothing is changed when one item of a request is invalid.
  assertError(await c.patch('/users/me/profile_data', { data: [{ id: short, value: 'ok' }, { id: date, value: 'bad' }] }), 400, 'BAD_REQUEST', 'Birthday is not a date');
  let u = assertSuccess(await owner.get(`/users/${member.id}`, { include_custom_profile_fields: true })).user;
  assert.equal(u.profile_data[String(short)], undefined);

  const res = await c.patch('/users/me/profile_data', {
    data: [
      { id: short, value: 'Memo' },
      { id: long, value: '**bold** bio' },
      { id: sel, value: 'a' },
      { id: date, value: '1990-05-17' },
      { id: url, value: 'https://example.com/me' },
      { id: users, value: [other.id, admin.id] },
      { id: ext, value: 'memtweets' },
      { id: pro, value: 'they/them' },
    ],
  });
  assertSuccess(res);
  u = assertSuccess(await owner.get(`/users/${member.id}`, { include_custom_profile_fields: true })).user;
  assertSchema({ ...res, body: { result: 'success', msg: '', user: u } }, 'GET', '/users/{user_id}');
  assert.deepEqual(u.profile_data[String(long)], { value: '**bold** bio', rendered_value: '<p><strong>bold</strong> bio</p>' });
  assert.deepEqual(u.profile_data[String(short)], { value: 'Memo', rendered_value: '<p>Memo</p>' });
  assert.deepEqual(u.profile_data[String(sel)], { value: 'a' });
  assert.deepEqual(u.profile_data[String(date)], { value: '1990-05-17' });
  assert.deepEqual(u.profile_data[String(url)], { value: 'https://example.com/me' });
  assert.deepEqual(u.profile_data[String(users)], { value: `[${other.id},${admin.id}]` });
  assert.deepEqual(u.profile_data[String(ext)], { value: 'memtweets' });
  assert.deepEqual(u.profile_data[String(pro)], { value: 'they/them' });
});

test('profile_data events: realm_user update to every user; unchanged values send nothing; null removes', async () => {
  const long = await createField({ name: 'About', field_type: 2 });
  const date = await createField({ name: 'Start date', field_type: 4 });
  const queues = await Promise.all([member, other, guest, admin].map((a) => openQueue(t.client(a), { event_types: ['realm_user'] })));
  const c = t.client(member);
  assertSuccess(await c.patch('/users/me/profile_data', { data: [{ id: long, value: 'Hi *there*' }, { id: date, value: '2024-01-02' }] }));
  for (const q of queues) {
    const evs = await q.ofType('realm_user');
    assert.deepEqual(evs.map((e) => ({ op: e.op, person: e.person })), [
      { op: 'update', person: { user_id: member.id, custom_profile_field: { id: long, value: 'Hi *there*', rendered_value: '<p>Hi <em>there</em></p>' } } },
      { op: 'update', person: { user_id: member.id, custom_profile_field: { id: date, value: '2024-01-02' } } },
    ]);
  }
  // Same values again: no events.
  assertSuccess(await c.patch('/users/me/profile_data', { data: [{ id: date, value: '2024-01-02' }] }));
  assert.deepEqual(await queues[1].ofType('realm_user'), []);
  // null removes the value.
  assertSuccess(await c.patch('/users/me/profile_data', { data: [{ id: date, value: null }] }));
  for (const q of queues) {
    const evs = await q.ofType('realm_user');
    assert.deepEqual(evs.map((e) => e.person), [{ user_id: member.id, custom_profile_field: { id: date, value: null } }]);
  }
  const u = assertSuccess(await owner.get(`/users/${member.id}`, { include_custom_profile_fields: true })).user;
  assert.equal(u.profile_data[String(date)], undefined);
  // DELETE /users/me/profile_data removes too.
  assertSuccess(await c.delete('/users/me/profile_data', { data: [long] }));
  const evs = await queues[2].ofType('realm_user');
  assert.deepEqual(evs.map((e) => e.person), [{ user_id: member.id, custom_profile_field: { id: long, value: null } }]);
  assertError(await c.delete('/users/me/profile_data', { data: [99999] }), 400, 'BAD_REQUEST', 'Field id 99999 not found.');
});

test('editing restrictions: editable_by_user=false blocks non-admins; admins may edit', async () => {
  const locked = await createField({ name: 'Employee ID', field_type: 1, editable_by_user: false });
  const open = await createField({ name: 'Hobby', field_type: 1 });
  const msg = 'You are not allowed to change this field. Contact an administrator to update it.';
  for (const acct of [member, moderator, guest]) {
    assertError(await t.client(acct).patch('/users/me/profile_data', { data: [{ id: locked, value: 'E1' }] }), 400, 'BAD_REQUEST', msg);
    assertError(await t.client(acct).delete('/users/me/profile_data', { data: [locked] }), 400, 'BAD_REQUEST', msg);
    assertSuccess(await t.client(acct).patch('/users/me/profile_data', { data: [{ id: open, value: 'chess' }] }));
  }
  for (const acct of [admin, t.owner]) {
    assertSuccess(await t.client(acct).patch('/users/me/profile_data', { data: [{ id: locked, value: 'E2' }] }));
  }
  // Bots cannot use the endpoint.
  assertError(await t.client(bot).patch('/users/me/profile_data', { data: [{ id: open, value: 'x' }] }), 400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.');
});

test('updateProfileData: administrators edit other users (PATCH /users/{id} profile_data path)', async () => {
  const locked = await createField({ name: 'Badge', field_type: 1, editable_by_user: false });
  const q = await openQueue(t.client(other), { event_types: ['realm_user'] });
  await updateProfileData(t.server.svc, admin.row, member.id, [{ id: locked, value: 'B-7' }]);
  await t.eventsDelivered();
  const evs = await q.ofType('realm_user');
  assert.deepEqual(evs.map((e) => e.person), [{ user_id: member.id, custom_profile_field: { id: locked, value: 'B-7', rendered_value: '<p>B-7</p>' } }]);
  await assert.rejects(updateProfileData(t.server.svc, moderator.row, member.id, [{ id: locked, value: 'x' }]), /Must be an organization administrator/);
  await assert.rejects(updateProfileData(t.server.svc, member.row, other.id, [{ id: locked, value: 'x' }]), /Must be an organization administrator/);
});

test('PATCH /users/{user_id} profile_data: administrators set other users\' values over HTTP', async () => {
  const fid = await createField({ name: 'Desk', field_type: 1, editable_by_user: false });
  const q = await openQueue(t.client(other), { event_types: ['realm_user'] });
  assertSuccess(await t.client(admin).patch(`/users/${member.id}`, { profile_data: [{ id: fid, value: 'D-12' }] }));
  const evs = await q.ofType('realm_user');
  assert.deepEqual(evs.map((e) => e.person), [{ user_id: member.id, custom_profile_field: { id: fid, value: 'D-12', rendered_value: '<p>D-12</p>' } }]);
  const got = assertSuccess(await owner.get(`/users/${member.id}`, { include_custom_profile_fields: true }));
  assert.deepEqual(got.user.profile_data[String(fid)], { value: 'D-12', rendered_value: '<p>D-12</p>' });
  assertError(await t.client(moderator).patch(`/users/${member.id}`, { profile_data: [{ id: fid, value: 'x' }] }), 400, 'BAD_REQUEST', 'Insufficient permission');
  assertError(await t.client(admin).patch(`/users/${member.id}`, { profile_data: [{ id: 999999, value: 'x' }] }), 400, 'BAD_REQUEST', 'Field id 999999 not found.');
  assertSuccess(await t.client(admin).patch(`/users/${member.id}`, { profile_data: [{ id: fid, value: null }] }));
  const after = assertSuccess(await owner.get(`/users/${member.id}`, { include_custom_profile_fields: true }));
  assert.equal(after.user.profile_data[String(fid)], undefined);
});
