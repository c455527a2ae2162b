/**
 * New Relic (/api/v1/external/newrelic): an incident (created, activated,
 * closed) from a workflow's webhook, with its priority, state, times,
 * policies and conditions, who acknowledged it, and the fields the
 * workflow adds under `zulipCustomFields`; topic: the incident's title. A
 * payload missing what that needs still gets a message, naming what is
 * missing.
 */
import { badRequest } from '../errors.ts';
import { globalTime } from '../util.ts';
import { pyStr, type Wild } from './wild.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';
import { pyCapitalize } from './python-text.ts';

const STATES = ['CREATED', 'ACTIVATED', 'CLOSED'];
const PRIORITIES: Record<string, string> = { CRITICAL: ':red_circle:', HIGH: ':orange_circle:', MEDIUM: ':yellow:', LOW: ':blue_circle:' };
const DEFAULT_URL = 'https://one.newrelic.com/alerts-ai';
const EXPECTED_FIELDS = ['issueUrl', 'title', 'priority', 'totalIncidents', 'state', 'createdAt', 'updatedAt', 'alertPolicyNames', 'alertConditionNames'];

/** A time in milliseconds as Zulip's `<time:...>`. */
function msTime(w: Wild): string {
  const date = new Date(Math.floor(w.int() / 1000) * 1000);
  if (Number.isNaN(date.getTime())) throw badRequest(`${w.name} is not a valid timestamp`);
  return globalTime(date);
}

const scalar = (v: unknown): boolean => v === null || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string';

/** The workflow's own fields, a line each: a value, a list of values, or Zulip's note that it is not one. */
function customFields(p: Wild): string {
  let out = '';
  for (const [key, value] of p.get('zulipCustomFields', {}).entries()) {
    const v = value.value;
    let shown: string | null = null;
    if (scalar(v)) shown = pyStr(v);
    else if (Array.isArray(v) && v.every(scalar)) shown = v.map(pyStr).join(', ');
    out += `- **${pyCapitalize(key)}**: ${shown ?? '*Value is not a supported data type*'}\n`;
  }
  return out;
}

function incident(p: Wild): WebhookMessage {
  const priority = p.at('priority').oneOf(Object.keys(PRIORITIES));
  const conditions = p
    .get('alertConditionNames', ['Unknown condition'])
    .list()
    .map((c) => `\`${c.str()}\``)
    .join(', ');
  const policies = p
    .get('alertPolicyNames', ['Unknown policy'])
    .list()
    .map((c) => `\`${c.str()}\``)
    .join(', ');
  const owner = p.get('owner').strOrNull();
  const acknowledged = owner && owner !== 'N/A' ? `**Acknowledged by**: ${owner}` : '';
  const title = p.at('title').str();
  const url = p.get('issueUrl', DEFAULT_URL).str();
  const total = p.at('totalIncidents').int();
  const state = p.at('state').oneOf(STATES);
  const created = msTime(p.at('createdAt'));
  const updated = msTime(p.at('updatedAt'));
  const details =
    `\n- **Alert policies**: ${policies}\n- **Conditions**: ${conditions}\n- **Total incidents**: ${total}\n- **Incident created at**: ${created}\n` + customFields(p);
  const body =
    `\n${PRIORITIES[priority]} **[${title}](${url})**\n\n` +
    `\`\`\`quote\n**Priority**: ${priority}\n**State**: ${state}\n**Updated at**: ${updated}\n${acknowledged}\n\`\`\`\n\n` +
    `\`\`\`spoiler :file: Incident details\n${details}\n\`\`\`\n`;
  return { topic: title, body, eventType: state };
}

export const newrelic: Integration = {
  name: 'NewRelic',
  displayName: 'New Relic',
  eventTypes: STATES,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const missing = EXPECTED_FIELDS.filter((k) => !p.has(k));
    if (missing.length > 0) {
      const body =
        `\n:danger: A New Relic [incident](${DEFAULT_URL}) updated\n\n` +
        '**Warning**: Unable to use the default notification format because at least one expected field was missing from the incident payload. See [New Relic integration documentation](/integrations/newrelic).\n\n' +
        `**Missing fields**: ${missing.map((k) => `\`${k}\``).join(', ')}\n`;
      return [{ topic: 'New Relic incident alerts', body }];
    }
    return [incident(p)];
  },
};
