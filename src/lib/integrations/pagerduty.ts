/**
 * PagerDuty (/api/v1/external/pagerduty): incidents triggered,
 * acknowledged, unacknowledged, resolved, assigned, reassigned, escalated
 * and delegated, from PagerDuty's webhooks V1 and V2 (a list of
 * `messages`) and V3 (one `event`), with Zulip's texts; topic: "Incident
 * <number>" ("Incident <title> (#<number>)" for V3). The event type is the
 * action ("triggered", ...). A message that cannot be read stops the list
 * there, after the messages before it; a V2 incident has to have a
 * description (the message quotes it), and V1's users are named by their
 * address's local part.
 */
import { badRequest } from '../errors.ts';
import { pyStr, type Wild } from './wild.ts';
import { jsonPayload, stoppedAfter, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'PagerDuty';
const V1_ACTIONS: Record<string, string> = {
  'incident.trigger': 'triggered',
  'incident.acknowledge': 'acknowledged',
  'incident.unacknowledge': 'unacknowledged',
  'incident.resolve': 'resolved',
  'incident.assign': 'assigned',
  'incident.escalate': 'escalated',
  'incident.delegate': 'delineated',
};
const V2_ACTIONS: Record<string, string> = {
  'incident.trigger': 'triggered',
  'incident.acknowledge': 'acknowledged',
  'incident.resolve': 'resolved',
  'incident.assign': 'assigned',
};
const V3_ACTIONS: Record<string, string> = {
  'incident.triggered': 'triggered',
  'incident.acknowledged': 'acknowledged',
  'incident.unacknowledged': 'unacknowledged',
  'incident.resolved': 'resolved',
  'incident.reassigned': 'reassigned',
};
const EVENT_TYPES = ['resolved', 'assigned', 'unacknowledged', 'acknowledged', 'triggered', 'reassigned'];

interface Incident {
  action: string;
  numTitle: string;
  url: string;
  service: string;
  serviceUrl: string;
  assignee: string;
  agent?: string;
  trigger: string;
}

const agentLink = (name: string, url: string): string => `[${name}](${url})`;
const quoteTrigger = (text: string): string => `\`\`\` quote\n${text}\n\`\`\``;
const own = (map: Record<string, string>, key: string | null): key is string => key !== null && Object.prototype.hasOwnProperty.call(map, key);

const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
/** An address as Python's email Address(addr_spec=...) reads it: a dot-atom (ASCII) or quoted local part, then "@" and a domain. */
const ADDR_SPEC = new RegExp(`^\\s*(?:(${ATEXT}+(?:\\.${ATEXT}+)*)|"((?:[^"\\\\]|\\\\.)*)")@(?:[^\\s@."()<>\\[\\]:;,\\\\]+(?:\\.[^\\s@."()<>\\[\\]:;,\\\\]+)*|\\[[^\\[\\]\\\\]*\\])\\s*$`);

/** The user name of an address (its local part, unquoted); what Python cannot parse is refused. */
function userOfAddress(w: Wild): string {
  const m = ADDR_SPEC.exec(w.str());
  if (!m) throw badRequest(`${w.name} is not an email address`);
  return m[1] ?? m[2].replace(/\\(.)/g, '$1');
}

function userLink(user: Wild): string {
  return agentLink(userOfAddress(user.at('email')), user.at('html_url').str());
}

function v1(message: Wild, type: string): Incident {
  const incident = message.at('data').at('incident');
  incident.at('id').str();
  const found: Incident = {
    action: V1_ACTIONS[type],
    numTitle: String(incident.at('incident_number').int()),
    url: incident.at('html_url').str(),
    service: incident.at('service').at('name').str(),
    serviceUrl: incident.at('service').at('html_url').str(),
    assignee: incident.get('assigned_to_user').truthy ? userLink(incident.at('assigned_to_user')) : 'nobody',
    trigger: '',
  };
  if (incident.get('resolved_by_user').truthy) found.agent = userLink(incident.at('resolved_by_user'));
  const lines: string[] = [];
  const summary = incident.get('trigger_summary_data');
  if (summary.truthy) {
    const subject = summary.get('subject', '').str();
    if (subject) lines.push(subject);
    const description = summary.get('description', '').str();
    if (description) lines.push(description);
  }
  found.trigger = quoteTrigger(lines.join('\n'));
  return found;
}

function v2(message: Wild, type: string): Incident {
  const incident = message.at('incident');
  incident.at('id').str();
  const found: Incident = {
    action: V2_ACTIONS[type],
    numTitle: String(incident.at('incident_number').int()),
    url: incident.at('html_url').str(),
    service: incident.at('service').at('name').str(),
    serviceUrl: incident.at('service').at('html_url').str(),
    assignee: 'nobody',
    trigger: '',
  };
  const assignments = incident.at('assignments');
  if (assignments.truthy) {
    const assignee = assignments.at(0).at('assignee');
    found.assignee = agentLink(assignee.at('summary').str(), assignee.at('html_url').str());
  }
  // Zulip reads who changed the status whether or not PagerDuty sent it.
  const changedBy = incident.get('last_status_change_by');
  found.agent = agentLink(changedBy.at('summary').str(), changedBy.at('html_url').str());
  // The message quotes the description: without one there is no message to send.
  found.trigger = quoteTrigger(incident.at('description').str());
  return found;
}

function v3(event: Wild, type: string): Incident {
  const data = event.at('data');
  data.at('id').str();
  const url = data.at('html_url').str();
  const number = data.at('number').int();
  const found: Incident = {
    action: V3_ACTIONS[type],
    numTitle: `${data.at('title').str()} (#${number})`,
    url,
    service: data.at('service').at('summary').str(),
    serviceUrl: data.at('service').at('html_url').str(),
    assignee: 'nobody',
    trigger: '',
  };
  const assignees = data.at('assignees');
  if (assignees.truthy) found.assignee = agentLink(assignees.at(0).at('summary').str(), assignees.at(0).at('html_url').str());
  const agent = event.get('agent');
  found.agent = agentLink(agent.at('summary').str(), agent.at('html_url').str());
  return found;
}

function message(type: string, i: Incident): WebhookMessage {
  const link = `Incident [${i.numTitle}](${i.url})`;
  let head: string;
  if (['incident.trigger', 'incident.triggered', 'incident.unacknowledge', 'incident.unacknowledged'].includes(type)) {
    head = `${link} ${i.action} by [${i.service}](${i.serviceUrl}) (assigned to ${i.assignee}).`;
  } else if (type === 'incident.resolve' || type === 'incident.resolved') {
    head = i.agent !== undefined ? `${link} resolved by ${i.agent}.` : `${link} resolved.`;
  } else if (type === 'incident.assign' || type === 'incident.reassigned') {
    head = `${link} ${i.action} to ${i.assignee}.`;
  } else {
    head = `${link} ${i.action} by ${i.assignee}.`;
  }
  return { topic: `Incident ${i.numTitle}`, body: `${head}\n\n${i.trigger}`, eventType: i.action };
}

export const pagerduty: Integration = {
  name: NAME,
  eventTypes: EVENT_TYPES,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const messages = p.get('messages');
    const out: WebhookMessage[] = [];
    if (messages.truthy) {
      // Zulip sends each message's message before reading the next: those before a bad one are sent.
      try {
        // Webhooks V1: each message has a `type`.
        for (const m of messages.list()) {
          const type = m.get('type').strOrNull();
          if (type === null) break;
          if (!own(V1_ACTIONS, type)) throw unsupportedEvent(NAME, type);
          out.push(message(type, v1(m, type)));
        }
        // Webhooks V2: each message has an `event`.
        for (const m of messages.list()) {
          const event = m.get('event').strOrNull();
          if (event === null) break;
          if (!own(V2_ACTIONS, event)) throw unsupportedEvent(NAME, event);
          out.push(message(event, v2(m, event)));
        }
      } catch (e) {
        throw stoppedAfter(out, e);
      }
    } else if (p.has('event')) {
      // Webhooks V3: one event.
      const event = p.at('event');
      const type = event.get('event_type').strOrNull();
      if (!own(V3_ACTIONS, type)) throw unsupportedEvent(NAME, pyStr(type));
      out.push(message(type, v3(event, type)));
    }
    return out;
  },
};
