/**
 * Statuspage (/api/v1/external/statuspage): an incident (its state and
 * latest update) or a component's status change; event types `incident`,
 * `component`; topic: "<incident or component>: <page status>". A payload
 * with neither is Zulip's anomalous-payload error.
 */
import { anomalousPayload, jsonPayload, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'Statuspage';

export const statuspage: Integration = {
  name: NAME,
  eventTypes: ['incident', 'component'],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    if (p.has('incident')) {
      const incident = p.at('incident');
      const topic = `${incident.at('name').str()}: ${p.at('page').at('status_description').str()}`;
      const [name, state] = [incident.at('name').str(), incident.at('status').str()];
      const body = `**${name}**:\n* State: **${state}**\n* Description: ${incident.at('incident_updates').at(0).at('body').str()}`;
      return [{ topic, body, eventType: 'incident' }];
    }
    if (p.has('component')) {
      const component = p.at('component');
      const topic = `${component.at('name').str()}: ${p.at('page').at('status_description').str()}`;
      const update = p.at('component_update');
      const body = `**${component.at('name').str()}** has changed status from **${update.at('old_status').str()}** to **${update.at('new_status').str()}**.`;
      return [{ topic, body, eventType: 'component' }];
    }
    throw anomalousPayload(NAME);
  },
};
