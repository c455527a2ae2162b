/**
 * Linear (/api/v1/external/linear; the event is the payload's `type`):
 * issues and sub-issues created, updated and removed, comments, projects
 * created, updated (what changed) and removed, and projects' status
 * updates, with Zulip's texts; topic: "Issue: <title>", "Sub-Issue:
 * <title>" or "Project: <name>". Labels, cycles and reactions are
 * acknowledged without a message, and so are the project updates Linear
 * sends on its own after a status update or a creation.
 */
import type { Wild } from './wild.ts';
import { jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'Linear';
const EVENTS = ['issue', 'sub_issue', 'comment', 'project', 'project_update'];
const IGNORED_TYPES = ['IssueLabel', 'Cycle', 'Reaction'];

const quote = (text: string): string => `\n~~~ quote\n${text}\n~~~\n`;
const HEALTH: Record<string, string> = { onTrack: 'On Track', atRisk: 'At Risk', offTrack: 'Off Track' };
const PRIORITY: Record<number, string> = { 1: 'Urgent', 2: 'High', 3: 'Medium', 4: 'Low' };
const EN_DASH = '\u2013';
const MIDDLE_DOT = '\u00b7';

function issueMessage(p: Wild, event: string): string {
  const d = p.at('data');
  const action = p.at('action').str();
  const kind = event === 'issue' ? 'Issue' : 'Sub-Issue';
  // Zulip's template reads the number and title too, though it does not show them.
  d.at('number').int();
  d.at('title').str();
  if (action === 'remove') return `This issue has been removed from team ${d.at('team').at('name').str()}.`;
  const url = p.at('url').str();
  let message = `[${kind}](${url}) was ${action === 'create' ? 'created' : 'updated'} in team ${d.at('team').at('name').str()}`;
  message += d.has('description') ? `:${quote(d.at('description').str())}` : '.';
  const extra: string[] = [];
  const priority = d.at('priorityLabel').str();
  if (priority !== 'No priority') extra.push(`Priority: ${priority}`);
  if (d.has('assignee')) extra.push(`Assignee: ${d.at('assignee').at('name').str()}`);
  extra.push(`Status: ${d.at('state').at('name').str()}`);
  return `${message}\n${extra.join(', ')}.`;
}

function commentMessage(p: Wild): string {
  const d = p.at('data');
  const action = p.at('action').str();
  const user = d.at('user').at('name').str();
  if (action === 'remove') return `${user} has removed a comment.`;
  const url = p.at('url').str();
  const title = d.at('issue').at('title').str();
  return `${user} [${action === 'create' ? 'commented' : 'updated comment'}](${url}) on issue **${title}**:${quote(d.at('body').str())}`;
}

/** What a project update changed, in Zulip's order and words (only additions and replacements). */
function projectChanges(p: Wild): string[] {
  const d = p.at('data');
  const from = p.at('updatedFrom');
  const changes: string[] = [];
  for (const key of ['name', 'statusId', 'leadId', 'priority', 'startDate', 'targetDate', 'content']) {
    if (!from.has(key)) continue;
    if (key === 'name') changes.push(`renamed to ${d.at('name').str()}`);
    else if (key === 'statusId') {
      const status = d.get('status');
      if (status.truthy) changes.push(`project status is now ${status.at('name').str()}`);
    } else if (key === 'leadId') {
      const lead = d.get('lead');
      if (lead.truthy) changes.push(`${lead.at('name').str()} is now the project lead`);
    } else if (key === 'priority') {
      const priority = d.at('priority').int();
      if (PRIORITY[priority]) changes.push(`priority is now set to ${PRIORITY[priority]}`);
    } else if (key === 'startDate' || key === 'targetDate') {
      const label = key === 'targetDate' ? 'target date' : 'start date';
      const now = d.at(key).strOrNull();
      if (now !== null) {
        const before = from.at(key).strOrNull();
        if (before === null) changes.push(`${label} is set to ${now}`);
        else changes.push(`${label} is ${now < before ? 'preponed' : 'postponed'} to ${now}`);
      }
    } else changes.push('description is updated');
  }
  return changes;
}

function projectCreated(p: Wild, head: string): string {
  const d = p.at('data');
  const description = d.has('description') ? d.at('description').str() : '';
  const inline: string[] = [];
  const status = d.get('status');
  if (status.truthy) inline.push(`**Status:** ${status.at('name').str()}`);
  const lead = d.get('lead');
  if (lead.truthy) inline.push(`**Lead:** ${lead.at('name').str()}`);
  if (d.has('priority')) {
    const priority = d.at('priority').int();
    if (PRIORITY[priority]) inline.push(`**Priority:** ${PRIORITY[priority]}`);
  }
  const dates: string[] = [];
  for (const [key, label] of [['startDate', 'Start date'], ['targetDate', 'Target date']]) {
    if (!d.has(key)) continue;
    const value = d.at(key).strOrNull();
    if (value) dates.push(`**${label}:** ${value}`);
  }
  let bullets: string[] = [];
  if (d.has('milestones')) {
    const names = d.at('milestones').list().map((m) => m.at('name').str());
    if (names.length > 0) bullets.push(`**${names.length === 1 ? 'Milestone' : 'Milestones'}:** ${names.join(', ')}`);
  }
  let message = head;
  // The schedule goes inside the description's quote; without a description, the dates are bullets.
  if (description) message += `:${quote(dates.length > 0 ? `${description}\n${dates.join(` ${EN_DASH} `)}` : description)}`;
  else bullets = [...dates, ...bullets];
  const lines = [...(inline.length > 0 ? [inline.join(` ${MIDDLE_DOT} `)] : []), ...bullets.map((b) => `- ${b}`)];
  if (lines.length === 0) return description ? message : `${message}.`;
  return description ? message + lines.join('\n') : `${message}\n${lines.join('\n')}`;
}

function projectMessage(p: Wild): string {
  const action = p.at('action').str();
  const actor = p.at('actor').at('name').str();
  const name = p.at('data').at('name').str();
  if (action === 'remove') return `${actor} removed project **${name}**.`;
  const url = p.at('url').str();
  if (action === 'create') return projectCreated(p, `${actor} created project [${name}](${url})`);
  const sentence = projectChanges(p).join(', ');
  const cp = sentence.codePointAt(0);
  const first = cp === undefined ? '' : String.fromCodePoint(cp);
  return `${actor} updated project [${name}](${url}).\n${first.toUpperCase()}${sentence.slice(first.length)}.`;
}

function projectUpdateMessage(p: Wild): string {
  const d = p.at('data');
  const action = p.at('action').str();
  const user = d.at('user').at('name').str();
  const project = d.at('project').at('name').str();
  if (action === 'remove') return `${user} removed a status update on **${project}**.`;
  const health = d.at('health').str();
  const url = p.at('url').str();
  let message = `${user} [${action === 'create' ? 'posted' : 'edited'}](${url}) a status update on **${project}** (health: ${HEALTH[health] ?? health}):`;
  message += quote(d.at('body').str());
  if (d.has('diffMarkdown')) {
    const diff = d.at('diffMarkdown').strOrNull();
    if (diff) message += `\n${diff}`;
  }
  return message;
}

/** The event, or null for what is acknowledged without a message. */
function eventOf(p: Wild): string | null {
  const type = p.at('type').str();
  if (type === 'Issue') return p.at('data').has('parentId') ? 'sub_issue' : 'issue';
  if (type === 'Comment') return 'comment';
  if (type === 'Project') {
    // Linear's own update after a status update, or one that only cleared something.
    if (p.has('updatedFrom') && (p.at('updatedFrom').has('lastUpdateId') || projectChanges(p).length === 0)) return null;
    return 'project';
  }
  if (type === 'ProjectUpdate') return 'project_update';
  if (IGNORED_TYPES.includes(type)) return null;
  throw unsupportedEvent(NAME, `${type}:${p.get('action', '???').str()}`);
}

function topicOf(p: Wild, event: string): string {
  const d = p.at('data');
  if (event === 'comment') return `Issue: ${d.at('issue').at('title').str()}`;
  if (event === 'sub_issue') return `Sub-Issue: ${d.at('title').str()}`;
  if (event === 'issue') return `Issue: ${d.at('title').str()}`;
  if (event === 'project') return `Project: ${d.at('name').str()}`;
  return `Project: ${d.at('project').at('name').str()}`;
}

const BODIES: Record<string, (p: Wild, event: string) => string> = {
  issue: issueMessage,
  sub_issue: issueMessage,
  comment: commentMessage,
  project: projectMessage,
  project_update: projectUpdateMessage,
};

export const linear: Integration = {
  name: NAME,
  eventTypes: EVENTS,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const event = eventOf(p);
    if (event === null) return [];
    // The topic is worked out first (also where the URL names one), as Zulip does.
    const topic = req.param('topic') ?? topicOf(p, event);
    // Zulip lists the event types but sends the message without one, so only_events and exclude_events do not apply.
    return [{ topic, body: BODIES[event](p, event) }];
  },
};
