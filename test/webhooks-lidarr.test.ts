/**
 * The Lidarr integration: Zulip's own test cases (the test notification,
 * tracks renamed and retagged, an album grabbed, tracks imported and
 * imported as an upgrade, within and over the listed limit), and what is
 * refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('lidarr');
const { hook, expectPosted } = h;

const by = (name: string, over: Record<string, unknown>) => ({ artist: { id: 1, name, path: `/media/Music/${name}` }, ...over });
const tracks = (titles: string[]) => titles.map((title, i) => ({ id: 41 + i, title, quality: 'MP3-320' }));
const bullets = (titles: string[]) => titles.map((t) => `* ${t}`).join('\n');

const UB40 = [
  'Cherry Oh Baby',
  'Keep On Moving',
  "Please Don't Make Me Cry",
  'Sweet Sensation',
  'Johnny Too Bad',
  'Red Red Wine',
  'Guilty',
  'She Caught the Train',
  'Version Girl',
  'Many Rivers to Cross',
];
const LITTLE_MIX = [
  'The National Manthem',
  'Woman Like Me',
  'Think About Us',
  'Strip',
  'Monster in Me',
  'Joan of Arc',
  'Love a Girl Right',
  'American Boy',
  'Told You So',
  'Wasabi',
  'More Than Words',
  'Motivate',
  'Notice',
  'The Cure',
  'Forget You Not',
  'Woman’s World',
  'The Cure (stripped)',
  'Only You',
];
const MJ_LISTED = [
  'Scream',
  'Billie Jean',
  'The Way You Make Me Feel',
  'They Don’t Care About Us',
  'Stranger in Moscow',
  'Black or White',
  'This Time Around',
  'Rock With You',
  'Earth Song',
  'She’s Out of My Life',
  'D.S.',
  'Bad',
  'Money',
  'I Just Can’t Stop Loving You',
  'Man in the Mirror',
  'Come Together',
  'Thriller',
  'You Are Not Alone',
  'Beat It',
  'Childhood (theme from “Free Willy 2”)',
];
const MJ = [...MJ_LISTED, 'HIStory', 'Smooth Criminal', 'Dirty Diana', 'Remember the Time', 'Jam', 'Heal the World', 'Dangerous', 'Leave Me Alone', 'Liberian Girl', 'Human Nature'];

test('lidarr: the test notification, tracks renamed and retagged, an album grabbed', async () => {
  const m = await expectPosted(
    await hook('lidarr', by('Test Name', { albums: [{ id: 123, title: 'Test title' }], eventType: 'Test' })),
    'Lidarr - Test',
    'Lidarr webhook has been successfully configured.',
  );
  assert.equal(m.client, 'ZulipLidarrWebhook');
  await expectPosted(await hook('lidarr', by('Little Mix', { eventType: 'Rename' })), 'Little Mix', 'The artist Little Mix has had its tracks renamed.');
  await expectPosted(await hook('lidarr', by('Little Mix', { eventType: 'Retag' })), 'Little Mix', 'The artist Little Mix has had its tracks retagged.');
  await expectPosted(
    await hook('lidarr', by('UB40', { albums: [{ id: 2, title: 'Labour of Love', quality: 'MP3-320' }], release: { quality: 'MP3-320' }, eventType: 'Grab' })),
    'UB40',
    'The album Labour of Love by UB40 has been grabbed.',
  );
});

test('lidarr: tracks imported and imported as an upgrade, within and over the limit', async () => {
  await expectPosted(
    await hook('lidarr', by('UB40', { tracks: tracks(UB40), isUpgrade: false, eventType: 'Download' })),
    'UB40',
    `The following tracks by UB40 have been imported:\n${bullets(UB40)}`,
  );
  await expectPosted(
    await hook('lidarr', by('Little Mix', { tracks: tracks(LITTLE_MIX), isUpgrade: true, eventType: 'Download' })),
    'Little Mix',
    `The following tracks by Little Mix have been imported due to upgrade:\n${bullets(LITTLE_MIX)}`,
  );
  assert.equal(MJ.length, 30);
  await expectPosted(
    await hook('lidarr', by('Michael Jackson', { tracks: tracks(MJ), isUpgrade: false, eventType: 'Download' })),
    'Michael Jackson',
    `The following tracks by Michael Jackson have been imported:\n${bullets(MJ_LISTED)}\n[and 10 more tracks(s)]`,
  );
  await expectPosted(
    await hook('lidarr', by('Michael Jackson', { tracks: tracks(MJ), isUpgrade: true, eventType: 'Download' })),
    'Michael Jackson',
    `The following tracks by Michael Jackson have been imported due to upgrade:\n${bullets(MJ_LISTED)}\n[and 10 more tracks(s)]`,
  );
});

test('lidarr: events it does not describe; malformed payloads; the URL generator\'s entry', async () => {
  // A download that does not say whether it upgrades, events Zulip does not describe.
  for (const [type, payload] of [
    ['Download', by('UB40', { tracks: tracks(UB40), eventType: 'Download' })],
    ['AlbumDelete', by('UB40', { eventType: 'AlbumDelete' })],
    ['Health', { level: 'warning', message: 'No download client is available', eventType: 'Health' }],
  ] as const) {
    const res = await hook('lidarr', payload);
    assert.equal(res.status, 200);
    assert.equal(res.body.msg, `The '${type}' event isn't currently supported by the Lidarr webhook; ignoring`);
  }
  const before = await h.last();
  assertError(await hook('lidarr', by('UB40', { albums: [], eventType: 'Grab' })), 400, 'BAD_REQUEST', "payload['albums'][0] is missing");
  assertError(await hook('lidarr', by('UB40', { tracks: tracks(UB40), isUpgrade: 'no', eventType: 'Download' })), 400, 'BAD_REQUEST', "payload['isUpgrade'] is not a boolean");
  assertError(await hook('lidarr', by('UB40', { tracks: [{ id: 1 }], isUpgrade: false, eventType: 'Download' })), 400, 'BAD_REQUEST', "payload['tracks'][0]['title'] is missing");
  assertError(await hook('lidarr', { eventType: 'Rename' }), 400, 'BAD_REQUEST', "payload['artist'] is missing");
  assertError(await hook('lidarr', by('UB40', {})), 400, 'BAD_REQUEST', "payload['eventType'] is missing");
  assert.equal((await h.last()).id, before.id);
  assert.deepEqual(await h.listed('lidarr'), { name: 'lidarr', display_name: 'Lidarr', all_event_types: ['Test', 'Grab', 'Rename', 'Retag', 'Download'], config_options: [], url_options: [] });
});
