/**
 * Sonarr (/api/v1/external/sonarr): the test notification, health checks,
 * a series renamed or deleted, an episode grabbed, imported (or upgraded
 * from one quality to another) or deleted (or replaced by an upgrade);
 * Sonarr's `eventType` is the event type; topic: the series' title,
 * `Health <level>` or `Sonarr - Test`.
 */
import { setupMessage } from './git.ts';
import type { Wild } from './wild.ts';
import { unsupportedEvent, type Integration } from './types.ts';
import { servarrIntegration } from './servarr.ts';

const EVENT_TYPES = ['Grab', 'EpisodeFileDelete', 'Test', 'Download', 'SeriesDelete', 'Health', 'Rename'] as const;

const series = (p: Wild): string => p.at('series').at('title').str();

/** "<series> - <season>x<episode> - <title>", of the payload's first episode. */
function episode(p: Wild): string {
  const e = p.at('episodes').at(0);
  return `${series(p)} - ${e.at('seasonNumber').int()}x${e.at('episodeNumber').int()} - ${e.at('title').str()}`;
}

function body(p: Wild, type: string): string {
  if (type === 'Test') return setupMessage('Sonarr');
  if (type === 'Health') return `${p.at('message').str()}.`;
  if (type === 'Rename') return `${series(p)} episodes have been renamed.`;
  if (type === 'SeriesDelete') return `${series(p)} has been deleted.`;
  if (type === 'Download' && p.has('isUpgrade')) {
    if (!p.at('isUpgrade').bool()) return `${episode(p)} has been imported.`;
    const text = episode(p);
    return `${text} has been upgraded from ${p.at('deletedFiles').at(0).at('quality').str()} to ${p.at('episodeFile').at('quality').str()}.`;
  }
  if (type === 'Grab') return `${episode(p)} has been grabbed.`;
  if (type === 'EpisodeFileDelete' && p.has('deleteReason')) {
    return p.at('deleteReason').str() === 'upgrade' ? `${episode(p)} has been deleted due to quality upgrade.` : `${episode(p)} has been deleted.`;
  }
  throw unsupportedEvent('Sonarr', type);
}

function topic(p: Wild, type: string): string {
  if (type === 'Test') return 'Sonarr - Test';
  if (type === 'Health') return `Health ${p.at('level').str()}`;
  return series(p);
}

export const sonarr: Integration = servarrIntegration('Sonarr', EVENT_TYPES, body, topic);
