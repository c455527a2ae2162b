/**
 * Ansible Tower / AWX (/api/v1/external/ansibletower): a job, project or
 * inventory update, ad hoc command or system job succeeded or failed; a
 * playbook job lists its hosts (by name) with how each fared. Topic: the
 * job's name.
 */
import { badRequest } from '../errors.ts';
import type { Wild } from './wild.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

/** What ran: Tower's `friendly_name`, else the kind in its URL (AWX 9 sends none), "Job" for playbooks. */
function friendlyName(p: Wild): string {
  const given = p.get('friendly_name', '').str();
  if (given) return given;
  const segments = p.at('url').str().split('/');
  if (segments.length < 3) throw badRequest(`${p.at('url').name} is not an Ansible Tower job's URL`);
  const kind = segments[segments.length - 3]!;
  return kind === 'jobs' ? 'Job' : kind;
}

function body(p: Wild): string {
  const kind = friendlyName(p);
  const status = p.at('status').str() === 'successful' ? 'was successful' : 'failed';
  if (kind !== 'Job') return `${kind}: [#${p.at('id').int()} ${p.at('name').str()}](${p.at('url').str()}) ${status}.`;
  const hosts = p
    .at('hosts')
    .entries()
    .map(([host, data]) => [host, data.at('failed').bool() ? 'Failed' : 'Success'] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const rows = hosts.map(([host, s]) => `* ${host}: ${s}\n`).join('');
  return `${kind}: [#${p.at('id').int()} ${p.at('name').str()}](${p.at('url').str()}) ${status}:\n${rows}`;
}

export const ansibletower: Integration = {
  name: 'AnsibleTower',
  displayName: 'Ansible Tower',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const text = body(p);
    return [{ topic: p.at('name').str(), body: text }];
  },
};
