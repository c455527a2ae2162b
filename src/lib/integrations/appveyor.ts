/**
 * AppVeyor (/api/v1/external/appveyor, a project's webhook notification):
 * a build's status (completed, failed, ...) linked to the build, the commit
 * that was built and who committed it, and when it started and finished
 * (AppVeyor's `M/D/YYYY h:mm AM` times, taken as UTC). Every field the
 * message names is required, as a string. Topic: the project's name.
 */
import { badRequest } from '../errors.ts';
import { globalTime } from '../util.ts';
import type { Wild } from './wild.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

/** The fields read, in the order they are checked. */
const FIELDS = ['projectName', 'buildVersion', 'status', 'buildUrl', 'commitUrl', 'committerName', 'commitDate', 'commitMessage', 'commitId', 'started', 'finished'] as const;
type Field = (typeof FIELDS)[number];

/** `%m/%d/%Y %I:%M %p` as Python's strptime reads it (runs of whitespace for the spaces, AM/PM in any case). */
const TIME = /^(1[0-2]|0[1-9]|[1-9])\/(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])\/(\d{4})\s+(1[0-2]|0[1-9]|[1-9]| [1-9]):([0-5]\d|\d)\s+(am|pm)$/i;

/** An AppVeyor time, in UTC, as a global time. */
function appveyorTime(w: Wild): string {
  const m = TIME.exec(w.str());
  const invalid = () => badRequest(`${w.name} is not a time of the form M/D/YYYY h:mm AM: ${w.str()}`);
  if (!m) throw invalid();
  const [month, day, year, hour12, minute] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
  const hour = (hour12 % 12) + (m[6]!.toLowerCase() === 'pm' ? 12 : 0);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, 0, 0);
  if (year < 1 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) throw invalid();
  return globalTime(date);
}

export const appveyor: Integration = {
  name: 'Appveyor',
  displayName: 'AppVeyor',
  handle(req): WebhookMessage[] {
    const event = jsonPayload(req).at('eventData');
    const d = {} as Record<Field, string>;
    for (const field of FIELDS) d[field] = field === 'started' || field === 'finished' ? appveyorTime(event.at(field)) : event.at(field).str();
    const body = [
      `[Build ${d.projectName} ${d.buildVersion} ${d.status}](${d.buildUrl}):`,
      `* **Commit**: [${d.commitId}: ${d.commitMessage}](${d.commitUrl}) by ${d.committerName}`,
      `* **Started**: ${d.started}`,
      `* **Finished**: ${d.finished}`,
    ].join('\n');
    return [{ topic: d.projectName, body }];
  },
};
