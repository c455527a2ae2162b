/**
 * The Sonarr integration: Zulip's own test cases (the test notification,
 * health checks, series renamed and deleted, episodes grabbed, imported,
 * upgraded and deleted), and what is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('sonarr');
const { hook, expectPosted } = h;

const episode = (series: string, season: number, number: number, title: string, over: Record<string, unknown>) => ({
  series: { id: 1, title: series },
  episodes: [{ seasonNumber: season, episodeNumber: number, title }],
  ...over,
});

test('sonarr: the test notification, health checks, series renamed and deleted', async () => {
  const m = await expectPosted(await hook('sonarr', { eventType: 'Test', series: { title: 'Test Title' } }), 'Sonarr - Test', 'Sonarr webhook has been successfully configured.');
  assert.equal(m.client, 'ZulipSonarrWebhook');
  await expectPosted(
    await hook('sonarr', { eventType: 'Health', level: 'warning', message: 'Indexers unavailable due to failures for more than 6 hours: Academic Torrents - Jackett' }),
    'Health warning',
    'Indexers unavailable due to failures for more than 6 hours: Academic Torrents - Jackett.',
  );
  await expectPosted(
    await hook('sonarr', { eventType: 'Health', level: 'error', message: 'No indexers available with RSS sync enabled, Sonarr will not grab new releases automatically' }),
    'Health error',
    'No indexers available with RSS sync enabled, Sonarr will not grab new releases automatically.',
  );
  await expectPosted(await hook('sonarr', { eventType: 'Rename', series: { title: 'The L Word' } }), 'The L Word', 'The L Word episodes have been renamed.');
  await expectPosted(await hook('sonarr', { eventType: 'SeriesDelete', series: { title: 'Breaking Bad' } }), 'Breaking Bad', 'Breaking Bad has been deleted.');
});

test('sonarr: episodes grabbed, imported, upgraded, deleted and replaced by an upgrade', async () => {
  await expectPosted(await hook('sonarr', episode("Grey's Anatomy", 17, 9, 'In My Life', { eventType: 'Download', isUpgrade: false })), "Grey's Anatomy", "Grey's Anatomy - 17x9 - In My Life has been imported.");
  await expectPosted(
    await hook('sonarr', episode('NCIS', 18, 10, 'Watchdog', { eventType: 'Download', isUpgrade: true, episodeFile: { quality: 'HDTV-720p' }, deletedFiles: [{ quality: 'SDTV' }] })),
    'NCIS',
    'NCIS - 18x10 - Watchdog has been upgraded from SDTV to HDTV-720p.',
  );
  await expectPosted(await hook('sonarr', episode('NCIS', 18, 10, 'Watchdog', { eventType: 'Grab' })), 'NCIS', 'NCIS - 18x10 - Watchdog has been grabbed.');
  await expectPosted(await hook('sonarr', episode('Breaking Bad', 1, 1, 'Pilot', { eventType: 'EpisodeFileDelete', deleteReason: 'manual' })), 'Breaking Bad', 'Breaking Bad - 1x1 - Pilot has been deleted.');
  await expectPosted(
    await hook('sonarr', episode('S.W.A.T. (2017)', 4, 10, 'Buried', { eventType: 'EpisodeFileDelete', deleteReason: 'upgrade' })),
    'S.W.A.T. (2017)',
    'S.W.A.T. (2017) - 4x10 - Buried has been deleted due to quality upgrade.',
  );
});

test('sonarr: events it does not describe; malformed payloads; the URL generator\'s entry', async () => {
  // A download that does not say whether it upgrades, a deletion without its reason, an event Zulip does not describe.
  for (const [type, payload] of [
    ['Download', episode('NCIS', 1, 1, 'x', { eventType: 'Download' })],
    ['EpisodeFileDelete', episode('NCIS', 1, 1, 'x', { eventType: 'EpisodeFileDelete' })],
    ['ApplicationUpdate', { eventType: 'ApplicationUpdate', series: { title: 'x' } }],
  ] as const) {
    const res = await hook('sonarr', payload);
    assert.equal(res.status, 200);
    assert.equal(res.body.msg, `The '${type}' event isn't currently supported by the Sonarr webhook; ignoring`);
  }
  assertError(await hook('sonarr', { eventType: 'Grab', series: { title: 'x' }, episodes: [] }), 400, 'BAD_REQUEST', "payload['episodes'][0] is missing");
  assertError(await hook('sonarr', { eventType: 'Health', message: 'm' }), 400, 'BAD_REQUEST', "payload['level'] is missing");
  assert.deepEqual((await h.listed('sonarr'))?.all_event_types, ['Grab', 'EpisodeFileDelete', 'Test', 'Download', 'SeriesDelete', 'Health', 'Rename']);
});
