/**
 * The Ansible Tower integration: Zulip's own test cases (playbook jobs with
 * their hosts, project and inventory updates, ad hoc commands, system jobs,
 * AWX 9's payload without a friendly name), and malformed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const h = webhookHarness('ansibletower');
const { hook, expectPosted } = h;

const AWX = 'http://awx.example.co.uk/#/jobs';
const hosts = (failed: boolean, ...names: string[]) => Object.fromEntries(names.map((n) => [n, { failed, ok: 1, changed: 0 }]));
const MANY = ['mail.example.co.uk', 'chat.example.co.uk', 'ipa.example.co.uk', 'gitlab.example.co.uk', 'devops.example.co.uk'];

test('ansibletower: playbook jobs list their hosts by name, succeeded or failed; AWX 9 without a friendly name', async () => {
  const zabbix = { id: 2674, name: 'System - Deploy - Zabbix Agent', url: `${AWX}/playbook/2674`, friendly_name: 'Job', status: 'successful' };
  const head = `Job: [#2674 System - Deploy - Zabbix Agent](${AWX}/playbook/2674) was successful:`;
  const m = await expectPosted(await hook('ansibletower', { ...zabbix, hosts: hosts(false, 'chat.example.co.uk') }), 'System - Deploy - Zabbix Agent', `${head}\n* chat.example.co.uk: Success`);
  assert.equal(m.client, 'ZulipAnsibleTowerWebhook');
  await expectPosted(
    await hook('ansibletower', { ...zabbix, hosts: hosts(false, ...MANY) }),
    'System - Deploy - Zabbix Agent',
    `${head}\n* chat.example.co.uk: Success\n* devops.example.co.uk: Success\n* gitlab.example.co.uk: Success\n* ipa.example.co.uk: Success\n* mail.example.co.uk: Success`,
  );
  const updates = { id: 2722, name: 'System - Updates - Ubuntu', url: `${AWX}/playbook/2722`, friendly_name: 'Job', status: 'failed' };
  const failed = `Job: [#2722 System - Updates - Ubuntu](${AWX}/playbook/2722) failed:`;
  await expectPosted(await hook('ansibletower', { ...updates, hosts: hosts(true, 'chat.example.co.uk') }), 'System - Updates - Ubuntu', `${failed}\n* chat.example.co.uk: Failed`);
  await expectPosted(
    await hook('ansibletower', { ...updates, hosts: hosts(true, ...MANY) }),
    'System - Updates - Ubuntu',
    `${failed}\n* chat.example.co.uk: Failed\n* devops.example.co.uk: Failed\n* gitlab.example.co.uk: Failed\n* ipa.example.co.uk: Failed\n* mail.example.co.uk: Failed`,
  );
  await expectPosted(
    await hook('ansibletower', { id: 1, name: 'Demo Job Template', url: 'https://towerhost/#/jobs/playbook/1', status: 'successful', hosts: hosts(false, 'localhost') }),
    'Demo Job Template',
    'Job: [#1 Demo Job Template](https://towerhost/#/jobs/playbook/1) was successful:\n* localhost: Success',
  );
});

test('ansibletower: project and inventory updates, ad hoc commands and system jobs', async () => {
  for (const [friendly, name, path, id] of [
    ['Project Update', 'AWX - Project Update', 'project', 2677],
    ['Inventory Update', 'AWX - Inventory Update', 'inventory', 2724],
    ['AdHoc Command', 'shell: uname -r', 'command', 2726],
    ['System Job', 'Cleanup Job Details', 'system', 2721],
  ] as const) {
    const payload = { id, name, friendly_name: friendly, url: `${AWX}/${path}/${id}` };
    await expectPosted(await hook('ansibletower', { ...payload, status: 'successful' }), name, `${friendly}: [#${id} ${name}](${AWX}/${path}/${id}) was successful.`);
    await expectPosted(await hook('ansibletower', { ...payload, status: 'failed' }), name, `${friendly}: [#${id} ${name}](${AWX}/${path}/${id}) failed.`);
  }
});

test('ansibletower: malformed payloads; the URL generator\'s entry', async () => {
  assertError(await hook('ansibletower', { id: 1, name: 'n', url: 'x', status: 'failed' }), 400, 'BAD_REQUEST', "payload['url'] is not an Ansible Tower job's URL");
  // Without a friendly name, what ran is read from the URL: AWX's job URLs name a playbook job, which lists its hosts.
  assertError(await hook('ansibletower', { id: 9, name: 'n', url: `${AWX}/project/9`, status: 'failed' }), 400, 'BAD_REQUEST', "payload['hosts'] is missing");
  assertError(await hook('ansibletower', { id: 1, friendly_name: 'System Job', url: 'u', status: 'failed' }), 400, 'BAD_REQUEST', "payload['name'] is missing");
  const listed = await h.listed('ansibletower');
  assert.equal(listed?.display_name, 'Ansible Tower');
  assert.deepEqual(listed?.all_event_types, null);
});
