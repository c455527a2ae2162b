/**
 * Greenhouse (/api/v1/external/greenhouse): what happened to a candidate
 * (hired, rejected, a stage changed, a new application or prospect, ...;
 * the action in title case), the role, their addresses and attachments;
 * Greenhouse's ping is answered with success. Topic: `<action> - <candidate ID>`.
 */
import type { Wild } from './wild.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';
import { pyTitle } from './python-text.ts';

/** "value (Type)" for each item with a value, "[Type](url)" for each with a link. */
function items(list: Wild): string {
  const out: string[] = [];
  for (const item of list.list()) {
    const type = pyTitle(item.get('type', '').str());
    const value = item.get('value').strOrNull();
    const url = item.get('url').value === null ? null : item.at('url').url();
    if (type && value) out.push(`${value} (${type})`);
    else if (type && url) out.push(`[${type}](${url})`);
  }
  return out.join(', ');
}

export const greenhouse: Integration = {
  name: 'Greenhouse',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const raw = p.at('action').str();
    if (raw === 'ping') return [];
    const candidate = raw === 'update_candidate' ? p.at('payload').at('candidate') : p.at('payload').at('application').at('candidate');
    const action = pyTitle(raw.replace(/_/g, ' '));
    const application = p.at('payload').at('application');
    const id = candidate.at('id').int();
    const body =
      `${action} ${candidate.at('first_name').str()} ${candidate.at('last_name').str()} (ID: ${id}), applying for:\n` +
      `* **Role**: ${application.at('jobs').at(0).at('name').str()}\n` +
      `* **Emails**: ${items(application.at('candidate').at('email_addresses'))}\n` +
      `* **Attachments**: ${items(application.at('candidate').at('attachments'))}`;
    return [{ topic: `${action} - ${id}`, body }];
  },
};
