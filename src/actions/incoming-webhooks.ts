/**
 * Incoming webhooks (/api/v1/external/<integration>): the integration turns
 * the request into messages; each is filtered by only_events /
 * exclude_events (shell-style patterns, as Zulip matches them) and sent as
 * the calling bot to `stream` (name or ID) and the integration's topic (or
 * the `topic` parameter), or, without `stream`, as a direct message to the
 * bot's owner; a message the integration addresses to an account goes to
 * it directly. A channel that does not exist is not an error for the
 * caller: the bot's owner is told instead, as Zulip does.
 */
import type { Services } from '../services.ts';
import { ApiError, badRequest } from '../lib/errors.ts';
import type { UserRow } from '../store/users.ts';
import { userById } from '../store/users.ts';
import { sendMessage } from './messages.ts';
import { notificationBot } from './system-bots.ts';
import { cachedUsers } from './cache.ts';
import { AfterMessages, IDENTIFY_BOT, IgnoredMisconfiguredPayload, MisconfiguredPayload, MissingEventHeader, pyUnquote, SlackCompatibleError, type Integration, type WebhookRequest } from '../lib/integrations/types.ts';
import { github, githubsponsors } from '../lib/integrations/github.ts';
import { gitlab } from '../lib/integrations/gitlab.ts';
import { alertmanager, grafana } from '../lib/integrations/alerts.ts';
import { json, slackIncoming } from '../lib/integrations/generic.ts';
import { sentry } from '../lib/integrations/sentry.ts';
import { gitea, gogs } from '../lib/integrations/gogs.ts';
import { uptimerobot } from '../lib/integrations/uptimerobot.ts';
import { ifttt, zapier } from '../lib/integrations/automation.ts';
import { azuredevops } from '../lib/integrations/azuredevops.ts';
import { sonarqube } from '../lib/integrations/sonarqube.ts';
import { netlify } from '../lib/integrations/netlify.ts';
import { jira } from '../lib/integrations/jira.ts';
import { trello } from '../lib/integrations/trello.ts';
import { lidarr } from '../lib/integrations/lidarr.ts';
import { linear } from '../lib/integrations/linear.ts';
import { homeassistant } from '../lib/integrations/homeassistant.ts';
import { newrelic } from '../lib/integrations/newrelic.ts';
import { zendesk } from '../lib/integrations/zendesk.ts';
import { updown } from '../lib/integrations/updown.ts';
import { pagerduty } from '../lib/integrations/pagerduty.ts';
import { opsgenie } from '../lib/integrations/opsgenie.ts';
import { openproject } from '../lib/integrations/openproject.ts';
import { heroku } from '../lib/integrations/heroku.ts';
import { travis } from '../lib/integrations/travis.ts';
import { statuspage } from '../lib/integrations/statuspage.ts';
import { pingdom } from '../lib/integrations/pingdom.ts';
import { zabbix } from '../lib/integrations/zabbix.ts';
import { papertrail } from '../lib/integrations/papertrail.ts';
import { splunk } from '../lib/integrations/splunk.ts';
import { circleci } from '../lib/integrations/circleci.ts';
import { bitbucket2, bitbucket3 } from '../lib/integrations/bitbucket.ts';
import { stripe } from '../lib/integrations/stripe.ts';
import { intercom } from '../lib/integrations/intercom.ts';
import { semaphore } from '../lib/integrations/semaphore.ts';
import { buildbot } from '../lib/integrations/buildbot.ts';
import { basecamp } from '../lib/integrations/basecamp.ts';
import { ansibletower } from '../lib/integrations/ansibletower.ts';
import { radarr } from '../lib/integrations/radarr.ts';
import { raygun } from '../lib/integrations/raygun.ts';
import { reviewboard } from '../lib/integrations/reviewboard.ts';
import { wekan } from '../lib/integrations/wekan.ts';
import { wordpress } from '../lib/integrations/wordpress.ts';
import { thinkst } from '../lib/integrations/thinkst.ts';
import { transifex } from '../lib/integrations/transifex.ts';
import { rhodecode } from '../lib/integrations/rhodecode.ts';
import { airbrake, airbyte } from '../lib/integrations/airbrake.ts';
import { sonarr } from '../lib/integrations/sonarr.ts';
import { greenhouse } from '../lib/integrations/greenhouse.ts';
import { opensearch } from '../lib/integrations/opensearch.ts';
import { dbt, delighted } from '../lib/integrations/dbt.ts';
import { helloworld, insping } from '../lib/integrations/insping.ts';
import { gocd } from '../lib/integrations/gocd.ts';
import { errbit } from '../lib/integrations/errbit.ts';
import { canarytoken } from '../lib/integrations/canarytoken.ts';
import { freshping } from '../lib/integrations/freshping.ts';
import { freshstatus } from '../lib/integrations/freshstatus.ts';
import { appveyor } from '../lib/integrations/appveyor.ts';
import { rundeck } from '../lib/integrations/rundeck.ts';
import { harbor } from '../lib/integrations/harbor.ts';
import { teamcity } from '../lib/integrations/teamcity.ts';
import { freshdesk } from '../lib/integrations/freshdesk.ts';
import { front } from '../lib/integrations/front.ts';
import { MalformedJson } from '../lib/integrations/wild.ts';

/** The integrations served under /api/v1/external/<name>. */
export const INTEGRATIONS: Record<string, Integration> = {
  airbrake,
  airbyte,
  alertmanager,
  ansibletower,
  appveyor,
  azuredevops,
  basecamp,
  bitbucket2,
  bitbucket3,
  buildbot,
  canarytoken,
  circleci,
  dbt,
  delighted,
  errbit,
  freshdesk,
  freshping,
  freshstatus,
  front,
  gitea,
  github,
  githubsponsors,
  gitlab,
  gocd,
  gogs,
  grafana,
  greenhouse,
  harbor,
  helloworld,
  heroku,
  homeassistant,
  ifttt,
  insping,
  intercom,
  jira,
  json,
  lidarr,
  linear,
  netlify,
  newrelic,
  openproject,
  opensearch,
  opsgenie,
  pagerduty,
  papertrail,
  pingdom,
  radarr,
  raygun,
  reviewboard,
  rhodecode,
  rundeck,
  semaphore,
  sentry,
  slack_incoming: slackIncoming,
  sonarqube,
  sonarr,
  splunk,
  statuspage,
  stripe,
  teamcity,
  thinkst,
  transifex,
  travis,
  trello,
  updown,
  uptimerobot,
  wekan,
  wordpress,
  zapier,
  zabbix,
  zendesk,
};

/** Python's fnmatch (case-sensitive): *, ? and [...] classes. */
export function fnmatch(name: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let cls = pattern.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (cls.startsWith('!')) cls = '^' + cls.slice(1);
        re += `[${cls}]`;
        i = end;
      }
    } else re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's').test(name);
}

function patternList(req: WebhookRequest, name: string): string[] | null {
  const raw = req.param(name);
  if (raw === undefined) return null;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw badRequest(`Argument "${name}" is not valid JSON.`);
  }
  if (!Array.isArray(v)) throw badRequest(`${name} is not a list`);
  v.forEach((x, i) => {
    if (typeof x !== 'string') throw badRequest(`${name}[${i}] is not a string`);
  });
  return v as string[];
}

/** Once a day per bot, as Zulip rate-limits its reminders to bot owners. */
const lastReminder = new WeakMap<Services, Map<number, number>>();
const REMINDER_INTERVAL_MS = 24 * 3600 * 1000;

/** Notification Bot tells a bot's owner about a problem with the bot (at most once a day per bot). */
async function remindBotOwner(svc: Services, bot: UserRow, content: string): Promise<void> {
  if (!bot.is_bot || bot.bot_owner_id === null) return;
  let seen = lastReminder.get(svc);
  if (!seen) lastReminder.set(svc, (seen = new Map()));
  const last = seen.get(bot.id);
  if (last !== undefined && Date.now() - last <= REMINDER_INTERVAL_MS) return;
  const owner = await userById(svc.store.db, svc.realmId, bot.bot_owner_id);
  if (!owner || !owner.is_active) return;
  seen.set(bot.id, Date.now());
  await sendMessage(svc, await notificationBot(svc), { type: 'private', to: JSON.stringify([owner.id]), topic: undefined, content, clientName: 'Internal' });
}

/** Sends one webhook message as the bot (Zulip's check_send_webhook_message, after event filtering). */
async function sendWebhookMessage(svc: Services, bot: UserRow, clientName: string, stream: string | undefined, topic: string, body: string, noPreviews = false): Promise<void> {
  if (stream === undefined) {
    const to = bot.bot_owner_id ?? bot.id;
    await sendMessage(svc, bot, { type: 'private', to: JSON.stringify([to]), topic: undefined, content: body, clientName, noPreviews });
    return;
  }
  const byId = /^\d+$/.test(stream);
  try {
    await sendMessage(svc, bot, { type: 'stream', to: byId ? stream : JSON.stringify(stream), topic, content: body, clientName, noPreviews });
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== 'STREAM_DOES_NOT_EXIST') throw e;
    const who = `\`${bot.delivery_email}\``;
    await remindBotOwner(
      svc,
      bot,
      byId
        ? `Your bot ${who} tried to send a message to channel ID ${stream}, but there is no channel with that ID.`
        : `Your bot ${who} tried to send a message to channel #**${stream}**, but that channel does not exist. Click [here](#channels/new) to create it.`,
    );
  }
}

/** The address Zulip's notices to bot owners name for help. */
const supportAddress = (svc: Services): string => `support@${new URL(svc.config.externalUrl).hostname}`;

function missingHeaderNotice(svc: Services, bot: UserRow, path: string, header: string, integration: string): string {
  const support = supportAddress(svc);
  return (
    `Hi there!  Your bot ${bot.full_name} just sent an HTTP request to ${path} that\n` +
    `is missing the HTTP ${header} header.  Because this header is how\n` +
    `${integration} indicates the event type, this usually indicates a configuration\n` +
    `issue, where you either entered the URL for a different integration, or are running\n` +
    `an older version of the third-party service that doesn't provide that header.\n` +
    `Contact ${support} if you need help debugging!`
  );
}

/**
 * Handles one request to an integration as `bot` (any active user may call;
 * bots are the usual callers). Returns what the answer holds besides
 * `result` and `msg`: nothing, or the bot's identity where the integration
 * asks for it.
 */
export async function receiveWebhook(
  svc: Services,
  bot: UserRow,
  integrationName: string,
  request: Omit<WebhookRequest, 'users'> & { path: string },
): Promise<Record<string, unknown>> {
  const integration = INTEGRATIONS[integrationName];
  const users = (await cachedUsers(svc)).list;
  const req: WebhookRequest & { path: string } = { ...request, users: () => users };
  /** Tells the bot's owner what is wrong with the service's setup (a MisconfiguredPayload's notice). */
  const remindOfSetup = (e: MisconfiguredPayload): Promise<void> =>
    remindBotOwner(svc, bot, e.notice.replace('{bot_name}', () => bot.full_name).replace('{support_email}', () => supportAddress(svc)));
  /** Tells the bot's owner what is wrong with its setup, where the error says so; the error is then the answer. */
  const refuse = async (e: unknown): Promise<never> => {
    if (e instanceof MissingEventHeader) await remindBotOwner(svc, bot, missingHeaderNotice(svc, bot, req.path, e.header, e.service ?? integration.name));
    if (e instanceof MalformedJson && integration.notifyOnMalformedJson !== false) {
      await remindBotOwner(
        svc,
        bot,
        `Hi there! It looks like you tried to set up the Zulip ${integration.name} integration,\n` +
          "but didn't correctly configure the webhook to send data in the JSON format\n" +
          'that this integration expects!',
      );
    }
    if (e instanceof MisconfiguredPayload) await remindOfSetup(e);
    throw e;
  };
  let messages;
  // An error met after some events' messages: those are sent first (see AfterMessages).
  let after: ApiError | undefined;
  try {
    messages = integration.handle(req);
  } catch (e) {
    if (e instanceof IgnoredMisconfiguredPayload) {
      await remindOfSetup(e);
      return {};
    }
    if (!(e instanceof AfterMessages)) return refuse(e);
    messages = e.messages;
    after = e.cause;
  }
  if (messages === IDENTIFY_BOT) return { full_name: bot.full_name, email: bot.email, id: bot.id };
  const clientName = `Zulip${integration.name}Webhook`;
  const unquote = (v: string | undefined): string | undefined => (v !== undefined && integration.unquoteUrlParameters ? pyUnquote(v) : v);
  const userTopic = unquote(req.param('topic'));
  const stream = unquote(req.param('stream'));
  // The event filters are read as a message is sent (Zulip's check_send_webhook_message): a request that sends none is not refused for them.
  let filters: { only: string[] | null; exclude: string[] | null } | undefined;
  try {
    for (const m of messages) {
      filters ??= { only: patternList(req, 'only_events'), exclude: patternList(req, 'exclude_events') };
      const { only, exclude } = filters;
      if (m.eventType !== undefined) {
        if (only && only.every((pat) => !fnmatch(m.eventType!, pat))) continue;
        if (exclude && exclude.some((pat) => fnmatch(m.eventType!, pat))) continue;
      }
      if (m.directTo !== undefined) await sendMessage(svc, bot, { type: 'private', to: JSON.stringify([m.directTo]), topic: undefined, content: m.body, clientName, noPreviews: m.noPreviews === true });
      else await sendWebhookMessage(svc, bot, clientName, stream, userTopic ?? m.topic, m.body, m.noPreviews === true);
    }
  } catch (e) {
    if (integration.slackCompatible && e instanceof ApiError && !(e instanceof SlackCompatibleError)) throw new SlackCompatibleError(e);
    throw e;
  }
  if (after) return refuse(after);
  return integration.slackCompatible ? { ok: true } : {};
}
