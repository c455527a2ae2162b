/**
 * Opsgenie (/api/v1/external/opsgenie): an alert's action (created,
 * acknowledged, closed, a note, tags, a team, an owner, an escalation, a
 * custom action, ...) with what it carries, in Zulip's text; the action is
 * the event type; topic: the Opsgenie integration's name. `eu_region=true`
 * links to Opsgenie's European service.
 */
import type { Wild } from './wild.ts';
import { boolParam, jsonPayload, type Integration, type WebhookMessage } from './types.ts';

const EVENT_TYPES = ['AddTeam', 'UnAcknowledge', 'AddNote', 'TestAction', 'Close', 'Escalate', 'AddRecipient', 'RemoveTags', 'Acknowledge', 'Delete', 'AddTags', 'TakeOwnership', 'Create', 'AssignOwnership'];

/** The alert's fields told, in Zulip's order, with their labels. */
const FIELDS: Array<[string, string]> = [
  ['note', 'Note'],
  ['recipient', 'Recipient'],
  ['addedTags', 'Tags added'],
  ['team', 'Team added'],
  ['owner', 'Assigned owner'],
  ['removedTags', 'Tags removed'],
  ['message', 'Message'],
  ['tags', 'Tags'],
  ['escalationName', 'Escalation'],
];

function details(p: Wild, tags: string): string {
  let out = '';
  const alert = p.get('alert', {});
  for (const [field, label] of FIELDS) {
    let value: string;
    if (field === 'tags' && tags) value = tags;
    else if (field === 'escalationName' && p.has(field)) value = p.at(field).str();
    else if (field !== 'tags' && alert.has(field)) value = alert.at(field).str();
    else continue;
    out += `* **${label}**: ${value}\n`;
  }
  return out;
}

export const opsgenie: Integration = {
  name: 'Opsgenie',
  eventTypes: EVENT_TYPES,
  urlOptions: [{ key: 'eu_region', label: "Use Opsgenie's European service region", validator: 'check_bool' }],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const region = boolParam(req, 'eu_region', false) ? 'eu.' : '';
    const type = p.at('action').str();
    const id = p.at('alert').at('alertId').str();
    const name = p.at('integrationName').str();
    const tags = p
      .at('alert')
      .get('tags', [])
      .list()
      .map((t) => `\`${t.str()}\``)
      .join(', ');
    const body = `[Opsgenie alert for ${name}](https://app.${region}opsgenie.com/alert/V2#/show/${id}):\n* **Type**: ${type}\n${details(p, tags)}`;
    return [{ topic: name, body, eventType: type }];
  },
};
