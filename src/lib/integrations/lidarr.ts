/**
 * Lidarr (/api/v1/external/lidarr): the test notification, an album
 * grabbed, an artist's tracks renamed or retagged, and tracks imported (or
 * imported as an upgrade), listed up to 20 and then counted; Lidarr's
 * `eventType` is the event type; topic: the artist's name or `Lidarr - Test`.
 */
import { setupMessage } from './git.ts';
import type { Wild } from './wild.ts';
import { unsupportedEvent, type Integration } from './types.ts';
import { servarrIntegration } from './servarr.ts';

const EVENT_TYPES = ['Test', 'Grab', 'Rename', 'Retag', 'Download'] as const;

/** How many tracks an import lists by name. */
const TRACKS_LIMIT = 20;

const artist = (p: Wild): string => p.at('artist').at('name').str();

/** The imported tracks, one bullet each, the ones past the limit counted. */
function trackList(titles: string[]): string {
  let out = titles
    .slice(0, TRACKS_LIMIT)
    .map((t) => `* ${t}\n`)
    .join('');
  if (titles.length > TRACKS_LIMIT) out += `[and ${titles.length - TRACKS_LIMIT} more tracks(s)]`;
  return out.trimEnd();
}

function body(p: Wild, type: string): string {
  if (type === 'Test') return setupMessage('Lidarr');
  if (type === 'Grab') {
    const name = artist(p);
    return `The album ${p.at('albums').at(0).at('title').str()} by ${name} has been grabbed.`;
  }
  if (type === 'Rename') return `The artist ${artist(p)} has had its tracks renamed.`;
  if (type === 'Retag') return `The artist ${artist(p)} has had its tracks retagged.`;
  if (type === 'Download' && p.has('isUpgrade')) {
    const how = p.at('isUpgrade').bool() ? 'imported due to upgrade' : 'imported';
    const titles = p
      .at('tracks')
      .list()
      .map((t) => t.at('title').str());
    return `The following tracks by ${artist(p)} have been ${how}:\n${trackList(titles)}`;
  }
  throw unsupportedEvent('Lidarr', type);
}

const topic = (p: Wild, type: string): string => (type === 'Test' ? 'Lidarr - Test' : artist(p));

export const lidarr: Integration = servarrIntegration('Lidarr', EVENT_TYPES, body, topic);
