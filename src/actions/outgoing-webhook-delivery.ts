/**
 * Outgoing-webhook bots (bot_type 3): running the jobs that messages queued
 * (outgoing-webhooks.ts), as Zulip does (zerver/lib/outgoing_webhook.py):
 * - a background pass claims due jobs and POSTs to each of the bot's
 *   services: Zulip's generic JSON payload (bot_email, bot_full_name, data,
 *   message, token, trigger) or the Slack-compatible form;
 * - the response's `content` (Slack: `text`) is posted by the bot in the
 *   same conversation (client "OutgoingWebhookResponse");
 * - timeouts and connection errors are retried (3 retries), then the bot says
 *   "Failure! Bot is unavailable" and its owner is told why; other status codes
 *   and bad responses fail at once, with the same notices.
 * The reply to the bot's last service commits with the job's "done" mark, and
 * only while the job's claim is still this server's: a server stopping
 * between the two cannot make the bot answer twice, nor can a claimant whose
 * lease ran out.
 */
import { refreshingFirst } from './cache.ts';
import type { Services } from '../services.ts';
import { ApiError } from '../lib/errors.ts';
import { startPeriodic } from '../lib/periodic.ts';
import { channelMessageUrl, dmMessageUrl } from '../lib/message-url.ts';
import { ZULIP_VERSION } from '../lib/version.ts';
import { userById, type UserRow } from '../store/users.ts';
import { messageById, RECIPIENT } from '../store/messages.ts';
import { servicesOfBots, type BotServiceRow } from '../store/bots.ts';
import type { Tx } from '../store/db.ts';
import {
  claimDueOutgoingWebhookJobs,
  finishClaimedOutgoingWebhookJob,
  finishOutgoingWebhookJob,
  retryOutgoingWebhookJob,
  type OutgoingWebhookJobRow,
} from '../store/outgoing-webhooks.ts';
import { formatMessages, loadDirectory } from './messages-format.ts';
import { sendMessage } from './messages.ts';
import { setOutgoingWebhookDelivery, wakeOutgoingWebhookDelivery } from './outgoing-webhooks.ts';

const MAX_REQUEST_RETRIES = 3;
const SLACK_INTERFACE = 2;

interface JobContext {
  svc: Services;
  bot: UserRow;
  message: Record<string, unknown>;
  job: OutgoingWebhookJobRow;
}

/** Another claimant took the job after this one's lease ran out: it delivers it, this one sends nothing. */
class ClaimLost extends Error {}

/** The bot answers in the conversation of the triggering message (Zulip's send_response_message). */
async function sendResponse(ctx: JobContext, content: string, inTransaction?: (tx: Tx) => Promise<void>): Promise<void> {
  const m = ctx.message;
  if (m.type === 'stream') {
    await sendMessage(ctx.svc, ctx.bot, { type: 'stream', to: String(m.stream_id), topic: String(m.subject), content, clientName: 'OutgoingWebhookResponse', inTransaction });
  } else {
    const ids = (m.display_recipient as Array<{ id: number }>).map((r) => r.id);
    await sendMessage(ctx.svc, ctx.bot, { type: 'private', to: JSON.stringify(ids), topic: undefined, content, clientName: 'OutgoingWebhookResponse', inTransaction });
  }
}

async function failWithMessage(ctx: JobContext, failure: string): Promise<void> {
  try {
    await sendResponse(ctx, `Failure! ${failure}`);
  } catch (e) {
    // The conversation may have vanished meanwhile: nowhere to report.
    if (!(e instanceof ApiError)) throw e;
  }
}

function messageUrl(ctx: JobContext): string {
  const m = ctx.message;
  const base = ctx.svc.config.externalUrl;
  if (m.type === 'stream') return channelMessageUrl(base, { id: Number(m.stream_id), name: String(m.display_recipient) }, String(m.subject), Number(m.id));
  return dmMessageUrl(base, (m.display_recipient as Array<{ id: number }>).map((r) => r.id), Number(m.id));
}

/** Python's repr() of a bytes value (how Zulip shows a response body to the bot's owner). */
export function pyBytesRepr(buf: Buffer): string {
  const s = buf.toString('latin1');
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = 'b' + quote;
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + quote;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c >= 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + quote;
}

/** The bot tells its owner about a failed webhook call (Zulip's notify_bot_owner). */
async function notifyBotOwner(
  ctx: JobContext,
  info: { statusCode?: number; responseContent?: string; failureMessage?: string; exception?: { type: string; text: string } },
): Promise<void> {
  const { bot, svc } = ctx;
  if (bot.bot_owner_id === null) return;
  const owner = await userById(svc.store.db, svc.realmId, bot.bot_owner_id);
  if (!owner || !owner.is_active) return;
  let text = `[A message](${messageUrl(ctx)}) to your bot @_**${bot.full_name}** triggered an outgoing webhook.`;
  if (info.exception) {
    text += `\nWhen trying to send a request to the webhook service, an exception of type ${info.exception.type} occurred:\n\`\`\`\n${info.exception.text}\n\`\`\``;
  } else if (info.failureMessage) text += '\n' + info.failureMessage;
  else if (info.statusCode === 407) text += '\nThe URL configured for the webhook is for a private or disallowed network.';
  else if (info.statusCode) text += `\nThe webhook got a response with status code *${info.statusCode}*.`;
  if (info.responseContent) text += `\nThe response contains the following payload:\n\`\`\`\n${info.responseContent}\n\`\`\``;
  try {
    await sendMessage(svc, bot, { type: 'private', to: JSON.stringify([owner.id]), topic: undefined, content: text, clientName: 'OutgoingWebhookResponse' });
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    svc.log.warn({ err: e }, 'outgoing webhook: could not notify the bot owner');
  }
}

function requestFor(ctx: JobContext, service: BotServiceRow, command: string): { body: string; contentType: string } | null {
  const m = ctx.message;
  if (service.interface === SLACK_INTERFACE) {
    const host = new URL(ctx.svc.config.externalUrl).host;
    const form = new URLSearchParams([
      ['token', service.token],
      ['team_id', `T${ctx.svc.realmId}`],
      ['team_domain', host],
      ['channel_id', `C${m.stream_id}`],
      ['channel_name', String(m.display_recipient)],
      ['thread_ts', String(m.timestamp)],
      ['timestamp', String(m.timestamp)],
      ['user_id', `U${m.sender_id}`],
      ['user_name', String(m.sender_full_name)],
      ['text', command],
      ['trigger_word', ctx.job.trigger],
      ['service_id', String(ctx.bot.id)],
    ]);
    return { body: form.toString(), contentType: 'application/x-www-form-urlencoded' };
  }
  return {
    body: JSON.stringify({ data: command, message: m, bot_email: ctx.bot.email, bot_full_name: ctx.bot.full_name, token: service.token, trigger: ctx.job.trigger }),
    contentType: 'application/json',
  };
}

/** `finished`: the reply finished the job in its transaction. */
type CallOutcome = { retry: false; finished?: true } | { retry: true; failureMessage: string };

class JsonableFailure extends Error {}

/** The bot's reply from a 2xx response (Zulip's process_success_response). */
function replyContent(service: BotServiceRow, text: string): string | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new JsonableFailure('Invalid JSON in response');
  }
  if (json === '') return null;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new JsonableFailure('Invalid response format');
  const r = json as Record<string, unknown>;
  let content: unknown = null;
  if (service.interface === SLACK_INTERFACE) {
    if ('text' in r) content = r.text;
  } else {
    if (r.response_not_required) return null;
    if ('response_string' in r) content = String(r.response_string);
    else if ('content' in r) content = typeof r.content === 'string' ? r.content : JSON.stringify(r.content);
  }
  if (typeof content !== 'string' || content.trim() === '') return null;
  return content;
}

/** `finishWithReply`, for the bot's last service: runs in the reply's transaction (it finishes the job). */
async function callService(
  ctx: JobContext,
  service: BotServiceRow,
  command: string,
  signal: AbortSignal,
  finishWithReply?: (tx: Tx) => Promise<void>,
): Promise<CallOutcome> {
  const req = requestFor(ctx, service, command);
  if (req === null) return { retry: false };
  if (service.interface === SLACK_INTERFACE && ctx.message.type === 'private') {
    await failWithMessage(ctx, "Slack outgoing webhooks don't support direct messages.");
    return { retry: false };
  }
  const timeoutS = ctx.svc.config.outgoingWebhookTimeoutSeconds;
  let res: Response;
  let text: string;
  try {
    res = await fetch(service.base_url, {
      method: 'POST',
      headers: { 'Content-Type': req.contentType, 'User-Agent': `ZulipOutgoingWebhook/${ZULIP_VERSION}` },
      body: req.body,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutS * 1000)]),
    });
    text = await res.text();
  } catch (e) {
    if (signal.aborted) throw e;
    const err = e as Error;
    if (err.name === 'TimeoutError') return { retry: true, failureMessage: `Request timed out after ${timeoutS} seconds.` };
    if (err.name === 'TypeError') return { retry: true, failureMessage: 'A connection error occurred. Is my bot server down?' };
    await failWithMessage(ctx, `An exception of type *${err.name}* occurred for message \`${command}\`! See the Zulip server logs for more information.`);
    await notifyBotOwner(ctx, { exception: { type: err.name, text: err.message } });
    return { retry: false };
  }
  if (res.status >= 200 && res.status < 300) {
    try {
      const content = replyContent(service, text);
      if (content !== null) {
        await sendResponse(ctx, content, finishWithReply);
        if (finishWithReply) return { retry: false, finished: true };
      }
    } catch (e) {
      if (!(e instanceof JsonableFailure) && !(e instanceof ApiError)) throw e;
      await failWithMessage(ctx, e.message);
      await notifyBotOwner(ctx, {
        responseContent: text,
        failureMessage: `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${e.message}`,
      });
    }
    return { retry: false };
  }
  ctx.svc.log.warn({ status: res.status, url: messageUrl(ctx) }, 'message triggered an outgoing webhook that answered with an error status');
  await failWithMessage(ctx, `Third party responded with ${res.status}`);
  await notifyBotOwner(ctx, { statusCode: res.status, responseContent: text ? pyBytesRepr(Buffer.from(text, 'utf8')) : undefined });
  return { retry: false };
}

/** One claimed job: every service of the bot, then finished, retried or given up. */
async function runJob(svc: Services, job: OutgoingWebhookJobRow, signal: AbortSignal): Promise<void> {
  const db = svc.store.db;
  const finish = () => finishOutgoingWebhookJob(db, job.id, Date.now());
  const bot = await userById(db, svc.realmId, job.bot_id);
  const row = await messageById(db, svc.realmId, job.message_id);
  if (!bot || !bot.is_active || !row) return finish();
  const dir = await loadDirectory(svc, db);
  const [dict] = await formatMessages(svc, db, [row], dir, { applyMarkdown: false, clientGravatar: false, allowEmptyTopicName: true });
  const message = { ...dict, rendered_content: row.rendered_content };
  if (row.recipient_type !== RECIPIENT.STREAM) delete (message as Record<string, unknown>).stream_id;
  const ctx: JobContext = { svc, bot, message, job };
  const services = await servicesOfBots(db, [bot.id]);
  // The reply to the last service finishes the job, while the claim is still this one.
  const finishWithReply = async (tx: Tx) => {
    if (!(await finishClaimedOutgoingWebhookJob(tx, job.id, job.locked_until, Date.now()))) throw new ClaimLost();
  };
  for (const [i, service] of services.entries()) {
    let outcome: CallOutcome;
    try {
      outcome = await callService(ctx, service, row.content, signal, i === services.length - 1 ? finishWithReply : undefined);
    } catch (e) {
      if (!(e instanceof ClaimLost)) throw e;
      svc.log.warn({ bot: bot.email, message: row.id }, 'outgoing webhook: the claim ran out before the reply; left to its new claimant');
      return;
    }
    if (!outcome.retry) {
      if (outcome.finished) return;
      continue;
    }
    const tries = job.failed_tries + 1;
    if (tries > MAX_REQUEST_RETRIES) {
      await failWithMessage(ctx, 'Bot is unavailable');
      await notifyBotOwner(ctx, { failureMessage: outcome.failureMessage });
      svc.log.warn({ bot: bot.email, message: row.id }, 'outgoing webhook: maximum retries exceeded');
      return finish();
    }
    await retryOutgoingWebhookJob(db, job.id, tries, Date.now());
    wakeOutgoingWebhookDelivery(svc);
    return;
  }
  return finish();
}

/** Delivers due jobs (including those left pending by a stopped server); each request runs on its own, so a slow bot delays no one else. */
export function startOutgoingWebhookDelivery(svc: Services, intervalMs = 1000): { stop(): Promise<void> } {
  const inflight = new Set<Promise<void>>();
  const abort = new AbortController();
  // A claim outlives the longest possible attempt; a job of a crashed server is taken up again after it.
  const leaseMs = svc.config.outgoingWebhookTimeoutSeconds * 1000 * 2 + 30_000;
  const periodic = startPeriodic(
    svc.log,
    'outgoing webhook delivery',
    refreshingFirst(svc, async () => {
      const jobs = await claimDueOutgoingWebhookJobs(svc.store.db, Date.now(), leaseMs, 50);
      for (const job of jobs) {
        const p: Promise<void> = runJob(svc, job, abort.signal)
          .catch(async (e: unknown) => {
            // Stopping: hand the job back at once, for the next start (or another server).
            if (abort.signal.aborted) await retryOutgoingWebhookJob(svc.store.db, job.id, job.failed_tries, Date.now());
            else svc.log.error({ err: e, job: job.id }, 'outgoing webhook job failed');
          })
          .finally(() => inflight.delete(p));
        inflight.add(p);
      }
    }),
    intervalMs,
  );
  setOutgoingWebhookDelivery(svc, periodic);
  return {
    async stop() {
      await periodic.stop();
      // Requests still running are abandoned and their jobs handed back (after a crash, they are taken up when the claim expires).
      abort.abort();
      await Promise.allSettled([...inflight]);
      setOutgoingWebhookDelivery(svc, null);
    },
  };
}
