/**
 * Radarr (/api/v1/external/radarr): the test notification, application
 * updates, health checks, a movie added, renamed, grabbed, imported (or
 * upgraded from one quality to another) or deleted (with or without its
 * files), and a movie's file deleted (with Radarr's reason); Radarr's
 * `eventType` is the event type; topic: the movie's title, `Health <level>`,
 * `Radarr - Application update` or `Radarr - Test`.
 */
import { setupMessage } from './git.ts';
import type { Wild } from './wild.ts';
import { unsupportedEvent, type Integration } from './types.ts';
import { servarrIntegration } from './servarr.ts';

const EVENT_TYPES = ['ApplicationUpdate', 'Test', 'Rename', 'Download', 'Health', 'Grab', 'MovieDelete', 'MovieFileDelete', 'MovieAdded'] as const;

/** Why Radarr deleted a movie's file (its `deleteReason`), as the message says it. */
const DELETE_REASONS = {
  missingFromDisk: 'because it is missing from disk',
  manual: 'manually',
  upgrade: 'because an upgraded version exists',
  noLinkedEpisodes: 'because it has no linked episodes',
  manualOverride: 'via manual override',
} as const;
const REASON_KEYS = Object.keys(DELETE_REASONS) as Array<keyof typeof DELETE_REASONS>;

const movie = (p: Wild): string => p.at('movie').at('title').str();

function body(p: Wild, type: string): string {
  if (type === 'Test') return setupMessage('Radarr');
  if (type === 'ApplicationUpdate') return `Radarr was updated from ${p.at('previousVersion').str()} to ${p.at('newVersion').str()}.`;
  if (type === 'Health') return `${p.at('message').str()}.`;
  if (type === 'Rename') return `The movie ${movie(p)} has been renamed.`;
  if (type === 'Download' && p.has('isUpgrade')) {
    const title = movie(p);
    if (!p.at('isUpgrade').truthy) return `The movie ${title} has been imported.`;
    const to = p.at('movieFile').at('quality').str();
    return `The movie ${title} has been upgraded from ${p.at('deletedFiles').at(0).at('quality').str()} to ${to}.`;
  }
  if (type === 'Grab') return `The movie ${movie(p)} has been grabbed.`;
  if (type === 'MovieDelete') {
    const title = movie(p);
    return `The movie ${title} was deleted; its files were ${p.at('deletedFiles').bool() ? 'also' : 'not'} deleted.`;
  }
  if (type === 'MovieFileDelete') {
    const title = movie(p);
    const quality = p.at('movieFile').at('quality').str();
    return `A file with quality ${quality} for the movie ${title} was deleted, ${DELETE_REASONS[p.at('deleteReason').oneOf(REASON_KEYS)]}.`;
  }
  if (type === 'MovieAdded') return `The movie ${movie(p)} was added.`;
  throw unsupportedEvent('Radarr', type);
}

function topic(p: Wild, type: string): string {
  if (type === 'Test') return 'Radarr - Test';
  if (type === 'ApplicationUpdate') return 'Radarr - Application update';
  if (type === 'Health') return `Health ${p.at('level').str()}`;
  return movie(p);
}

export const radarr: Integration = servarrIntegration('Radarr', EVENT_TYPES, body, topic);
