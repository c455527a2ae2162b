/**
 * The Grafana and Alertmanager integrations: Zulip's own test cases
 * (payloads trimmed to what is read) beside those of
 * incoming-webhooks.test.ts: Grafana 7's states, several alerts of one
 * unified payload, Grafana 11's values and an alert without a name;
 * Alertmanager's topic and description taken from the fields the URL names.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertError, assertSuccess } from './helpers.ts';
import { webhookHarness } from './webhook-helpers.ts';

const CHANNEL = 'grafana';
const h = webhookHarness(CHANNEL);
const { hook, expectPosted } = h;
const FORM = { contentType: 'application/x-www-form-urlencoded' };

async function lastTwo(): Promise<Array<[string, string]>> {
  const res = assertSuccess(
    await h.t.client(h.t.owner).get('/messages', { anchor: 'newest', num_before: 2, num_after: 0, narrow: [{ operator: 'channel', operand: CHANNEL }], apply_markdown: false }),
  );
  return res.messages.map((m: any) => [m.subject, m.content]);
}

const V7 = {
  ruleName: 'Test rule',
  ruleUrl: 'http://localhost:3000/',
  message: 'Someone is testing the alert notification within grafana.',
  imageUrl: 'https://grafana.com/assets/img/blog/mixed_styles.png',
};
const MATCHES = [
  { value: 100, metric: 'High value', tags: null },
  { value: 200, metric: 'Higher Value', tags: null },
];

test('grafana 7: ok, paused and pending; no data; no message', async () => {
  await expectPosted(
    await hook('grafana', { ...V7, evalMatches: [{ value: 0, metric: 'High value', tags: null }], state: 'ok', title: '[Ok] Test notification' }, FORM),
    '[Ok] Test notification',
    ':squared_ok: **OK**\n\n[Test rule](http://localhost:3000/)\n\nSomeone is testing the alert notification within grafana.\n\n**High value:** 0\n\n[Click to view visualization](https://grafana.com/assets/img/blog/mixed_styles.png)',
  );
  await expectPosted(
    await hook('grafana', { ...V7, state: 'paused', title: '[Paused] Test notification' }, FORM),
    '[Paused] Test notification',
    ':info: **PAUSED**\n\n[Test rule](http://localhost:3000/)\n\nSomeone is testing the alert notification within grafana.\n\n\n[Click to view visualization](https://grafana.com/assets/img/blog/mixed_styles.png)',
  );
  await expectPosted(
    await hook('grafana', { ...V7, evalMatches: MATCHES, state: 'pending', title: '[Pending] Test notification' }, FORM),
    '[Pending] Test notification',
    ':info: **PENDING**\n\n[Test rule](http://localhost:3000/)\n\nSomeone is testing the alert notification within grafana.\n\n**High value:** 100\n**Higher Value:** 200\n\n[Click to view visualization](https://grafana.com/assets/img/blog/mixed_styles.png)',
  );
  await expectPosted(
    await hook(
      'grafana',
      {
        evalMatches: [],
        message: 'The panel has no data.',
        ruleName: 'No Data alert',
        ruleUrl: 'http://localhost:3000/d/GG2qhR3Wz/alerttest?fullscreen&edit&tab=alert&panelId=6&orgId=1',
        state: 'alerting',
        title: '[Alerting] No Data alert',
      },
      FORM,
    ),
    '[Alerting] No Data alert',
    ':alert: **ALERTING**\n\n[No Data alert](http://localhost:3000/d/GG2qhR3Wz/alerttest?fullscreen&edit&tab=alert&panelId=6&orgId=1)\n\nThe panel has no data.',
  );
  await expectPosted(
    await hook(
      'grafana',
      {
        evalMatches: [{ value: 21.573108436586445, metric: 'A-series', tags: null }],
        ruleName: 'No Message alert',
        ruleUrl: 'http://localhost:3000/d/GG2qhR3Wz/alerttest?fullscreen&edit&tab=alert&panelId=8&orgId=1',
        state: 'alerting',
        title: '[Alerting] No Message alert',
      },
      FORM,
    ),
    '[Alerting] No Message alert',
    ':alert: **ALERTING**\n\n[No Message alert](http://localhost:3000/d/GG2qhR3Wz/alerttest?fullscreen&edit&tab=alert&panelId=8&orgId=1)\n\n**A-series:** 21.573108436586445',
  );
});

test("grafana 7: a match's metric is read before its value, which may be none, an integer or a float (a boolean counts as an integer, as in Python; a float written as Python writes it)", async () => {
  const base = { ...V7, state: 'alerting', title: 'T' };
  assertError(await hook('grafana', { ...base, evalMatches: [{ value: 'x' }] }), 400, 'BAD_REQUEST', "payload['evalMatches'][0]['metric'] is missing");
  assertError(await hook('grafana', { ...base, evalMatches: [{ metric: 'm', value: '5' }] }), 400, 'BAD_REQUEST', "payload['evalMatches'][0]['value'] is not an allowed_type");
  assertError(await hook('grafana', { ...base, evalMatches: [{ metric: 'm' }] }), 400, 'BAD_REQUEST', "payload['evalMatches'][0]['value'] is missing");
  await expectPosted(
    await hook('grafana', { ...base, imageUrl: undefined, message: undefined, evalMatches: [{ metric: 'up', value: true }, { metric: 'gone', value: null }, { metric: 'tiny', value: 0.00001 }] }),
    'T',
    // Floats as Python writes them.
    ':alert: **ALERTING**\n\n[Test rule](http://localhost:3000/)\n\n**up:** True\n**gone:** None\n**tiny:** 1e-05',
  );
});

const MEMORY = {
  status: 'firing',
  labels: { alertname: 'High memory usage', team: 'blue', zone: 'us-1' },
  annotations: { description: 'The system has high memory usage', runbook_url: 'https://myrunbook.com/runbook/1234', summary: 'This alert was triggered for zone us-1' },
  startsAt: '2021-10-12T09:51:03.157076+02:00',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: 'https://play.grafana.org/alerting/1afz29v7z/edit',
  fingerprint: 'c6eadffa33fcdf37',
  silenceURL: 'https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT2%2Cteam%3Dblue%2Czone%3Dus-1',
  dashboardURL: '',
  panelURL: '',
  valueString: "[ metric='' labels={} value=14151.331895396988 ]",
};
const CPU = {
  ...MEMORY,
  labels: { alertname: 'High CPU usage', team: 'blue', zone: 'eu-1' },
  annotations: { description: 'The system has high CPU usage', runbook_url: 'https://myrunbook.com/runbook/1234', summary: 'This alert was triggered for zone eu-1' },
  startsAt: '2021-10-12T09:56:03.157076+02:00',
  generatorURL: 'https://play.grafana.org/alerting/d1rdpdv7k/edit',
  fingerprint: 'bc97ff14869b13e3',
  silenceURL: 'https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT1%2Cteam%3Dblue%2Czone%3Deu-1',
  valueString: "[ metric='' labels={} value=47043.702386305304 ]",
};

test('grafana 8+: each alert of a payload is its own message', async () => {
  assertSuccess(await hook('grafana', { receiver: 'My Super Webhook', status: 'firing', alerts: [MEMORY, CPU], title: '[FIRING:2]  (blue)', state: 'alerting' }));
  assert.deepEqual(await lastTwo(), [
    [
      '[High memory usage]',
      ':alert: **FIRING**\n\n**High memory usage**\n\nThis alert was fired at <time:2021-10-12T09:51:03+02:00>.\n\nLabels:\n- alertname: High memory usage\n- team: blue\n- zone: us-1\n\nValues:\n' +
        "[ metric='' labels={} value=14151.331895396988 ]\n\nAnnotations:\n- description: The system has high memory usage\n- runbook_url: https://myrunbook.com/runbook/1234\n- summary: This alert was triggered for zone us-1\n\n" +
        '[Generator](https://play.grafana.org/alerting/1afz29v7z/edit)\n[Silence](https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT2%2Cteam%3Dblue%2Czone%3Dus-1)',
    ],
    [
      '[High CPU usage]',
      ':alert: **FIRING**\n\n**High CPU usage**\n\nThis alert was fired at <time:2021-10-12T09:56:03+02:00>.\n\nLabels:\n- alertname: High CPU usage\n- team: blue\n- zone: eu-1\n\nValues:\n' +
        "[ metric='' labels={} value=47043.702386305304 ]\n\nAnnotations:\n- description: The system has high CPU usage\n- runbook_url: https://myrunbook.com/runbook/1234\n- summary: This alert was triggered for zone eu-1\n\n" +
        '[Generator](https://play.grafana.org/alerting/d1rdpdv7k/edit)\n[Silence](https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT1%2Cteam%3Dblue%2Czone%3Deu-1)',
    ],
  ]);
});

const V11 = {
  status: 'firing',
  labels: { alertname: 'Memory (copy)', debug: 'true', grafana_folder: 'device' },
  annotations: { summary: 'High memory usage' },
  startsAt: '2024-03-01T02:09:00Z',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: 'https://play.grafana.org/alerting/grafana/dd2f0260-3cfc-4c65-a4c4-f3f632c551f4/view?orgId=1',
  fingerprint: 'e6349a25f5ef0e9e',
  silenceURL:
    'https://play.grafana.org/alerting/silence/new?alertmanager=grafana\\u0026matcher=alertname%3DMemory+%28copy%29\\u0026matcher=debug%3Dtrue\\u0026matcher=grafana_folder%3Ddevice\\u0026orgId=1',
  values: { A: 2473545728, B: 0, C: 1, minute: 9 },
  valueString: "[ var='A' labels={instance=node_exporter:9100, job=node} value=2.473545728e+09 ]",
  imageURL: 'https://grafana.com/assets/img/blog/mixed_styles.png',
};
const V11_TAIL =
  'Values:\n- A: 2473545728\n- B: 0\n- C: 1\n- minute: 9\n\nAnnotations:\n- summary: High memory usage\n\n' +
  '[Generator](https://play.grafana.org/alerting/grafana/dd2f0260-3cfc-4c65-a4c4-f3f632c551f4/view?orgId=1)\n' +
  '[Silence](https://play.grafana.org/alerting/silence/new?alertmanager=grafana\\u0026matcher=alertname%3DMemory+%28copy%29\\u0026matcher=debug%3Dtrue\\u0026matcher=grafana_folder%3Ddevice\\u0026orgId=1)\n' +
  '[Image](https://grafana.com/assets/img/blog/mixed_styles.png)';

test("grafana 11: the alert's values (before its value string) and image; without a name, the fingerprint is the topic", async () => {
  await expectPosted(
    await hook('grafana', { receiver: 'Debug webhook', status: 'firing', alerts: [V11] }, FORM),
    '[Memory (copy)]',
    ':alert: **FIRING**\n\n**Memory (copy)**\n\nThis alert was fired at <time:2024-03-01T02:09:00+00:00>.\n\nLabels:\n- alertname: Memory (copy)\n- debug: true\n- grafana_folder: device\n\n' + V11_TAIL,
  );
  await expectPosted(
    await hook('grafana', { receiver: 'Debug webhook', status: 'firing', alerts: [{ ...V11, labels: { debug: 'true', grafana_folder: 'device' } }] }, FORM),
    '[e6349a25f5ef0e9e]',
    ':alert: **FIRING**\n\nThis alert was fired at <time:2024-03-01T02:09:00+00:00>.\n\nLabels:\n- debug: true\n- grafana_folder: device\n\n' + V11_TAIL,
  );
});

test("grafana 11: a value that is not a number is written as Python's str() writes it", async () => {
  await expectPosted(
    await hook('grafana', { alerts: [{ status: 'firing', labels: {}, startsAt: '2024-03-01T02:09:00Z', endsAt: '0001-01-01T00:00:00Z', fingerprint: 'f', values: { A: { x: "it's", y: [1.5, true, null, 'a\nb'] }, B: 'text' } }] }),
    '[f]',
    ':alert: **FIRING**\n\nThis alert was fired at <time:2024-03-01T02:09:00+00:00>.Values:\n- A: {\'x\': "it\'s", \'y\': [1.5, True, None, \'a\\nb\']}\n- B: text',
  );
});

const GRAPH = 'http://cobalt:9090/graph?g0.expr=avg+by%28host%29+%28sensors_temp_input%7Bfeature%3D~%22core_%5B0-9%5D%2B%22%7D%29+%3E+15';
const TEMPERATURE = (status: string, description: string) => ({
  status,
  labels: { alertname: 'High CPU Temperature', host: 'andromeda', severity: 'critical' },
  annotations: { description, topic: 'andromeda', summary: 'High CPU core temperature' },
  startsAt: '2020-02-06T00:17:58.432911368Z',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: `${GRAPH}&g0.tab=1`,
  fingerprint: 'a1bc48475b20e73d',
});
const BY_FIELDS = { query: { name: 'topic', desc: 'description' } };

test("alertmanager: the topic and description from the fields the URL names (name=topic&desc=description), in the alert's labels or annotations", async () => {
  await expectPosted(
    await hook('alertmanager', { receiver: 'ops-zulip', status: 'firing', alerts: [TEMPERATURE('firing', 'CPU core temperature is 34.75C'), TEMPERATURE('firing', 'CPU core temperature is 17.625C')] }, BY_FIELDS),
    'andromeda',
    `:alert: **FIRING**\n* CPU core temperature is 34.75C ([source](${GRAPH}&g0.tab=0))\n* CPU core temperature is 17.625C ([source](${GRAPH}&g0.tab=0))`,
  );
  await expectPosted(
    await hook('alertmanager', { receiver: 'ops-zulip', status: 'resolved', alerts: [TEMPERATURE('resolved', 'CPU core temperature is 34.75C')] }, BY_FIELDS),
    'andromeda',
    `:squared_ok: **Resolved** CPU core temperature is 34.75C ([source](${GRAPH}&g0.tab=0))`,
  );
  // Fields the alert does not have.
  await expectPosted(
    await hook('alertmanager', { alerts: [TEMPERATURE('firing', 'x')] }, { query: { name: 'nowhere', desc: 'nothing' } }),
    '(unknown)',
    `:alert: **FIRING** <missing field: nothing> ([source](${GRAPH}&g0.tab=0))`,
  );
});
