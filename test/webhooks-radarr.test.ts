/**
 * The Radarr integration: Zulip's own test cases (the test notification,
 * application updates, health checks, movies added, renamed, grabbed,
 * imported, upgraded and deleted, a movie's file deleted), and what is
 * refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('radarr');
const { hook, expectPosted } = h;

const BATMAN = 'Batman v Superman: Dawn of Justice';
const about = (title: string, over: Record<string, unknown>) => ({ movie: { id: 796, title, releaseDate: '2016-06-24' }, ...over });

test('radarr: the test notification, application updates, health checks', async () => {
  const m = await expectPosted(await hook('radarr', about('Test Title', { eventType: 'Test' })), 'Radarr - Test', 'Radarr webhook has been successfully configured.');
  assert.equal(m.client, 'ZulipRadarrWebhook');
  await expectPosted(
    await hook('radarr', { message: 'Radarr updated from 4.2.0.6370 to 4.2.0.6372', previousVersion: '4.2.0.6370', newVersion: '4.2.0.6372', eventType: 'ApplicationUpdate' }),
    'Radarr - Application update',
    'Radarr was updated from 4.2.0.6370 to 4.2.0.6372.',
  );
  await expectPosted(
    await hook('radarr', { level: 'warning', message: 'No download client is available', type: 'DownloadClientCheck', eventType: 'Health' }),
    'Health warning',
    'No download client is available.',
  );
  await expectPosted(
    await hook('radarr', { level: 'error', message: 'Movie Gotham City Sirens (tmdbid 416649) was removed from TMDb', type: 'RemovedMovieCheck', eventType: 'Health' }),
    'Health error',
    'Movie Gotham City Sirens (tmdbid 416649) was removed from TMDb.',
  );
});

test('radarr: movies added, renamed, grabbed, imported, upgraded and deleted; files deleted', async () => {
  await expectPosted(await hook('radarr', about(BATMAN, { eventType: 'MovieAdded' })), BATMAN, `The movie ${BATMAN} was added.`);
  await expectPosted(await hook('radarr', about('Marley & Me', { eventType: 'Rename' })), 'Marley & Me', 'The movie Marley & Me has been renamed.');
  await expectPosted(
    await hook('radarr', about('Greenland', { release: { quality: 'WEBRip-1080p' }, downloadClient: 'Deluge', eventType: 'Grab' })),
    'Greenland',
    'The movie Greenland has been grabbed.',
  );
  await expectPosted(
    await hook('radarr', about(BATMAN, { movieFile: { id: 32, quality: 'WEBDL-720p' }, isUpgrade: false, eventType: 'Download' })),
    BATMAN,
    `The movie ${BATMAN} has been imported.`,
  );
  await expectPosted(
    await hook('radarr', about('Greenland', { movieFile: { id: 29, quality: 'WEBRip-1080p' }, isUpgrade: true, deletedFiles: [{ id: 8, quality: 'WEBRip-720p' }], eventType: 'Download' })),
    'Greenland',
    'The movie Greenland has been upgraded from WEBRip-720p to WEBRip-1080p.',
  );
  await expectPosted(await hook('radarr', about(BATMAN, { deletedFiles: true, eventType: 'MovieDelete' })), BATMAN, `The movie ${BATMAN} was deleted; its files were also deleted.`);
  await expectPosted(await hook('radarr', about(BATMAN, { deletedFiles: false, eventType: 'MovieDelete' })), BATMAN, `The movie ${BATMAN} was deleted; its files were not deleted.`);
  await expectPosted(
    await hook('radarr', about('Marley & Me', { movieFile: { id: 36664, quality: 'Bluray-1080p' }, deleteReason: 'missingFromDisk', eventType: 'MovieFileDelete' })),
    'Marley & Me',
    'A file with quality Bluray-1080p for the movie Marley & Me was deleted, because it is missing from disk.',
  );
  await expectPosted(
    await hook('radarr', about('Marley & Me', { movieFile: { quality: 'Bluray-1080p' }, deleteReason: 'upgrade', eventType: 'MovieFileDelete' })),
    'Marley & Me',
    'A file with quality Bluray-1080p for the movie Marley & Me was deleted, because an upgraded version exists.',
  );
});

test('radarr: events it does not describe; malformed payloads; the URL generator\'s entry', async () => {
  // A download that does not say whether it upgrades, an event Zulip does not describe.
  for (const [type, payload] of [
    ['Download', about('Greenland', { eventType: 'Download' })],
    ['ManualInteractionRequired', about('Greenland', { eventType: 'ManualInteractionRequired' })],
  ] as const) {
    const res = await hook('radarr', payload);
    assert.equal(res.status, 200);
    assert.equal(res.body.msg, `The '${type}' event isn't currently supported by the Radarr webhook; ignoring`);
  }
  const before = await h.last();
  assertError(await hook('radarr', about('x', { movieFile: { quality: 'q' }, deleteReason: 'gone', eventType: 'MovieFileDelete' })), 400, 'BAD_REQUEST', "Invalid payload['deleteReason']");
  assertError(await hook('radarr', about('x', { deletedFiles: 'yes', eventType: 'MovieDelete' })), 400, 'BAD_REQUEST', "payload['deletedFiles'] is not a boolean");
  assertError(await hook('radarr', about('x', { isUpgrade: true, movieFile: { quality: 'q' }, deletedFiles: [], eventType: 'Download' })), 400, 'BAD_REQUEST', "payload['deletedFiles'][0] is missing");
  assertError(await hook('radarr', { eventType: 'Health', message: 'm' }), 400, 'BAD_REQUEST', "payload['level'] is missing");
  assertError(await hook('radarr', { eventType: 'Grab' }), 400, 'BAD_REQUEST', "payload['movie'] is missing");
  assertError(await hook('radarr', { movie: { title: 'x' } }), 400, 'BAD_REQUEST', "payload['eventType'] is missing");
  assert.equal((await h.last()).id, before.id);
  const types = ['ApplicationUpdate', 'Test', 'Rename', 'Download', 'Health', 'Grab', 'MovieDelete', 'MovieFileDelete', 'MovieAdded'];
  assert.deepEqual(await h.listed('radarr'), { name: 'radarr', display_name: 'Radarr', all_event_types: types, config_options: [], url_options: [] });
});
