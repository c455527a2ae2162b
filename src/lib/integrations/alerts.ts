/**
 * Monitoring integrations: Alertmanager (/api/v1/external/alertmanager,
 * optional `name` and `desc` label parameters) and Grafana
 * (/api/v1/external/grafana, both the unified alerting payload of Grafana 8+
 * and the legacy Grafana 7 one), with Zulip's topics and texts.
 */
import { badRequest } from '../errors.ts';
import { pyStr, type Wild } from './wild.ts';
import { isoGlobalTime, jsonPayload, type Integration, type WebhookMessage } from './types.ts';

export const alertmanager: Integration = {
  name: 'Alertmanager',
  displayName: 'Prometheus Alertmanager',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const nameField = req.param('name') ?? 'instance';
    const descField = req.param('desc') ?? 'alertname';
    const topics = new Map<string, { firing: string[]; resolved: string[] }>();
    for (const alert of p.at('alerts').list()) {
      const labels = alert.get('labels', {});
      const annotations = alert.get('annotations', {});
      const pick = (field: string, fallback: string): string =>
        (labels.has(field) ? labels.at(field) : annotations.has(field) ? annotations.at(field) : null)?.str() ?? fallback;
      const name = pick(nameField, '(unknown)');
      const desc = pick(descField, `<missing field: ${descField}>`);
      const url = alert.at('generatorURL').str().replace('tab=1', 'tab=0');
      let entry = topics.get(name);
      if (!entry) topics.set(name, (entry = { firing: [], resolved: [] }));
      const status = alert.at('status').oneOf(['firing', 'resolved'] as const);
      entry[status].push(`${desc} ([source](${url}))`);
    }
    const out: WebhookMessage[] = [];
    for (const [topic, statuses] of topics) {
      for (const status of ['firing', 'resolved'] as const) {
        const messages = statuses[status];
        if (messages.length === 0) continue;
        const [icon, title] = status === 'firing' ? [':alert:', 'FIRING'] : [':squared_ok:', 'Resolved'];
        const body = messages.length === 1 ? `${icon} **${title}** ${messages[0]}` : `${icon} **${title}**\n${messages.map((m) => `* ${m}`).join('\n')}`;
        out.push({ topic, body });
      }
    }
    return out;
  },
};

const STATUS = (icon: string, state: string): string => `${icon} **${state}**\n\n`;

function grafanaUnified(p: Wild): WebhookMessage[] {
  const out: WebhookMessage[] = [];
  for (const alert of p.at('alerts').list()) {
    const status = alert.at('status').oneOf(['firing', 'resolved'] as const);
    let body = STATUS(status === 'firing' ? ':alert:' : ':checkbox:', status.toUpperCase());
    const labels = alert.at('labels');
    let topic: string;
    if (labels.has('alertname') && labels.at('alertname').truthy) {
      const alertname = labels.at('alertname').str();
      topic = `[${alertname}]`;
      body += `**${alertname}**\n\n`;
    } else {
      topic = `[${alert.at('fingerprint').str()}]`;
    }
    body += `This alert was fired at ${isoGlobalTime(alert.at('startsAt'))}.`;
    const end = alert.at('endsAt').str();
    if (end !== '0001-01-01T00:00:00Z') body += `\n\nThis alert was resolved at ${isoGlobalTime(alert.at('endsAt'))}.`;
    if (labels.truthy) body += `\n\nLabels:\n${labels.entries().map(([k, v]) => `- ${k}: ${v.str()}\n`).join('')}\n`;
    if (alert.get('values').truthy) {
      body += `Values:\n${alert.at('values').entries().map(([k, v]) => `- ${k}: ${pyStr(v.value)}\n`).join('')}\n`;
    } else if (alert.get('valueString').truthy) {
      body += `Values:\n${alert.at('valueString').str()}\n\n`;
    }
    if (alert.get('annotations').truthy) body += `Annotations:\n${alert.at('annotations').entries().map(([k, v]) => `- ${k}: ${v.str()}\n`).join('')}`;
    if (alert.get('generatorURL').truthy) body += `\n[Generator](${alert.at('generatorURL').str()})`;
    if (alert.get('silenceURL').truthy) body += `\n[Silence](${alert.at('silenceURL').str()})`;
    if (alert.get('imageURL').truthy) body += `\n[Image](${alert.at('imageURL').str()})`;
    body += '\n';
    out.push({ topic, body, eventType: status });
  }
  return out;
}

/** A legacy match's value: none, an integer or a float (Zulip's check_union of check_int and check_float, where Python's booleans are integers). */
function evalValue(v: Wild): unknown {
  if (v.isNull || typeof v.value === 'number' || typeof v.value === 'boolean') return v.value;
  throw badRequest(`${v.name} is not an allowed_type`);
}

function grafanaLegacy(p: Wild): WebhookMessage[] {
  const topic = p.at('title').str();
  let evalMatches = '';
  if (p.has('evalMatches') && !p.at('evalMatches').isNull) {
    for (const m of p.at('evalMatches').list()) {
      const metric = m.at('metric').str();
      evalMatches += `**${metric}:** ${pyStr(evalValue(m.at('value')))}\n`;
    }
  }
  const messageText = p.has('message') ? `${p.at('message').str()}\n\n` : '';
  const state = p.at('state').oneOf(['no_data', 'paused', 'alerting', 'ok', 'pending', 'unknown'] as const);
  const icon = state === 'alerting' ? ':alert:' : state === 'ok' ? ':squared_ok:' : ':info:';
  let body = `${STATUS(icon, state.toUpperCase())}[${p.at('ruleName').str()}](${p.at('ruleUrl').str()})\n\n${messageText}${evalMatches}`;
  if (p.has('imageUrl')) body += `\n[Click to view visualization](${p.at('imageUrl').str()})`;
  return [{ topic, body: body.trim(), eventType: state }];
}

export const grafana: Integration = {
  name: 'Grafana',
  eventTypes: ['ok', 'pending', 'alerting', 'paused', 'firing', 'resolved'],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    return p.has('alerts') ? grafanaUnified(p) : grafanaLegacy(p);
  },
};
