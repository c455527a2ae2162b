/**
 * TeamCity (/api/v1/external/teamcity), from the tcWebHooks plugin's
 * "Legacy Webhook (JSON)" format: a build started, successful, fixed,
 * broken or still broken, linked to its changes and its log. Topic: the
 * build's full name, with its branch where TeamCity names one. A personal
 * build goes to whoever started it, as a direct message, where the name
 * TeamCity gives (or else their TeamCity user name) is an account's name
 * or the start of its address; else nothing is sent. A payload of another
 * format (the plugin's Slack one, say) posts nothing, and the bot's owner
 * is told to choose the legacy format.
 */
import { badRequest } from '../errors.ts';
import type { Wild } from './wild.ts';
import { guessUser, IgnoredMisconfiguredPayload, jsonPayload, type Integration, type WebhookMessage } from './types.ts';

const MISCONFIGURED =
  'Hi there! Your bot {bot_name} just received a TeamCity payload in a\n' +
  "format that Zulip doesn't recognize. This usually indicates a\n" +
  'configuration issue in your TeamCity webhook settings. Please make sure\n' +
  'that you set the **Payload Format** option to **Legacy Webhook (JSON)**\n' +
  'in your TeamCity webhook configuration. Contact {support_email} if you\n' +
  'need further help!';

/** The value of the first of the build's TeamCity properties with this name. */
function property(properties: Wild, name: string): string | null {
  for (const p of properties.list()) {
    if (p.at('name').str() === name) return p.at('value').str();
  }
  return null;
}

function status(build: Wild): string {
  const result = build.at('buildResult').str();
  const delta = build.at('buildResultDelta').str();
  const buildStatus = build.at('buildStatus').str();
  if (result === 'success') return delta === 'fixed' ? 'has been fixed! :thumbs_up:' : 'was successful! :thumbs_up:';
  if (result === 'failure') return delta === 'broken' ? `is broken with status ${buildStatus}! :thumbs_down:` : `is still broken with status ${buildStatus}! :thumbs_down:`;
  if (result === 'running') return 'has started.';
  throw badRequest(`${build.at('buildResult').name} is not one of success, failure, running`);
}

export const teamcity: Integration = {
  name: 'TeamCity',
  displayName: 'Teamcity',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    if (!p.has('build')) throw new IgnoredMisconfiguredPayload(MISCONFIGURED);
    const build = p.at('build');
    const name = build.at('buildFullName').str();
    const logUrl = build.at('buildStatusUrl').str();
    const number = build.at('buildNumber').str();
    const st = status(build);
    let body = `${name} build ${number} ${st} See [changes](${logUrl}&tab=buildChangesDiv) and [build log](${logUrl}).`;
    const topic = build.has('branchDisplayName') ? `${name} (${build.at('branchDisplayName').str()})` : name;
    const properties = build.at('teamcityProperties');
    if (property(properties, 'env.BUILD_IS_PERSONAL') !== 'true') return [{ topic, body }];

    // TeamCity names who started the build ("<full name>; <client>"), and their user name among the properties.
    const users = req.users();
    let user = guessUser(build.at('triggeredBy').str().split(';')[0]!, users);
    if (!user) {
      const username = property(properties, 'teamcity.build.triggeredBy.username');
      if (username !== null) user = guessUser(username, users);
    }
    if (!user) return [];
    body = `Your personal build for ${body}`;
    return [{ topic, body, directTo: user.id }];
  },
};
