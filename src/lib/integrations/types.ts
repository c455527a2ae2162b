/** The shape every incoming-webhook integration implements (pure functions: request in, messages out). */
import { ApiError, badRequest, missingArgument } from '../errors.ts';
import { parsePayload, Wild } from './wild.ts';

export interface WebhookRequest {
  /** The raw request body (UTF-8). */
  body: string;
  /** The request's Content-Type without parameters, lower-case. */
  contentType: string;
  /** A request header (case-insensitive). */
  header(name: string): string | undefined;
  /** A query-string or form parameter. */
  param(name: string): string | undefined;
  /** The organization's accounts (active or not, bots included), by ID, for integrations that name people. */
  users(): readonly WebhookUser[];
}

/** An account as an integration may look it up (Jira names people by name or address). */
export interface WebhookUser {
  id: number;
  full_name: string;
  /** The address clients see (Zulip's `email`). */
  email: string;
  delivery_email: string;
  is_active: boolean | number;
  is_system_bot: boolean | number;
}

/**
 * The first active account (by ID) whose name is `name` or whose address
 * starts with it, in any case: how Zulip's Jira and Harbor integrations
 * guess who a service's user name stands for. System bots are not the
 * organization's.
 */
export function guessUser(name: string, users: readonly WebhookUser[]): WebhookUser | undefined {
  const upper = name.toUpperCase();
  return users.find((u) => Boolean(u.is_active) && !u.is_system_bot && (u.full_name.toUpperCase() === upper || u.email.toUpperCase().startsWith(upper)));
}

export interface WebhookMessage {
  topic: string;
  body: string;
  /** The complete event type, matched against only_events / exclude_events. */
  eventType?: string;
  /**
   * An account (by ID) the message goes to as a direct message from the
   * caller, in place of the URL's channel and topic (TeamCity's personal
   * builds, to whoever started them); the rules of any direct message the
   * caller sends apply.
   */
  directTo?: number;
  /** Rendered without previews of its links (Zulip's no_previews: links that need a login to the service). */
  noPreviews?: true;
}

/**
 * A parameter of the integration's URL that the "Generate URL for an
 * integration" dialog offers (Zulip's url_options): a check box for
 * `check_bool`, a text field for `check_string`; `branches` is Zulip's
 * preset, offered as a choice of branches.
 */
export interface UrlOption {
  key: string;
  label: string;
  validator: 'check_bool' | 'check_string';
}

/** Zulip's BRANCHES preset: a comma-separated list of the branches to notify about. */
export const BRANCHES_OPTION: UrlOption = { key: 'branches', label: '', validator: 'check_string' };

export interface Integration {
  /** Zulip's name of the webhook (used in its error messages, e.g. "GitHub"). */
  name: string;
  /** The name shown in the list of integrations, where it is not `name` (Zulip's display_name). */
  displayName?: string;
  /** The event types `only_events` and `exclude_events` can pick from (Zulip's all_event_types); none where they do not apply. */
  eventTypes?: readonly string[];
  /** False where a payload that is not JSON is not worth telling the bot's owner about (Zulip's notify_bot_owner_on_invalid_json). */
  notifyOnMalformedJson?: false;
  /**
   * The `stream` and `topic` parameters are URL-decoded once more (Zulip's
   * unquote_url_parameters): services such as Jira escape their URLs twice.
   */
  unquoteUrlParameters?: true;
  /** A HEAD request (the service checking the URL) is answered with success, once authenticated (Zulip's return_success_on_head_request). */
  succeedsOnHead?: true;
  /** Answers as Slack does: `"ok": true` beside success, and the errors raised while sending as SlackCompatibleError. */
  slackCompatible?: true;
  /** The URL's own parameters offered when generating it (Zulip's url_options). */
  urlOptions?: readonly UrlOption[];
  /** Turns one request into the messages to send (none for ignored events), or asks for the calling bot's identity. */
  handle(req: WebhookRequest): WebhookMessage[] | typeof IDENTIFY_BOT;
}

/**
 * What `handle` returns for a request that only checks the connection: no
 * message is sent, and the answer names the calling bot (its `full_name`,
 * `email` and `id`), as Zulip's Zapier integration answers Zapier's "auth"
 * request so that Zapier can label the connection.
 */
export const IDENTIFY_BOT = 'identify-bot';

/** Zulip's UnsupportedWebhookEventTypeError: answered with HTTP 200 and result "error". */
export function unsupportedEvent(webhookName: string, eventType: string): ApiError {
  return new ApiError(`The '${eventType}' event isn't currently supported by the ${webhookName} webhook; ignoring`, {
    code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    status: 200,
    extra: { webhook_name: webhookName, event_type: eventType },
  });
}

/**
 * An error of the Slack-compatible webhook, answered as Slack answers
 * (`{"ok": false, "error": msg}` with its status), as Zulip's
 * slack_error_handler answers the errors raised while handling the request;
 * a payload's malformed fields and authentication keep Zulip's answer.
 */
export class SlackCompatibleError extends ApiError {
  constructor(e: ApiError) {
    super(e.message, { code: e.code, status: e.status });
  }
  override body(): Record<string, unknown> {
    return { ok: false, error: this.message };
  }
}

/** Zulip's AnomalousWebhookPayloadError: a payload that does not look like the service's at all. */
export function anomalousPayload(webhookName: string): ApiError {
  return new ApiError(`Unable to parse request: Did ${webhookName} generate this event?`, {
    code: 'ANOMALOUS_WEBHOOK_PAYLOAD',
    extra: { webhook_name: webhookName },
  });
}

/** Zulip's MissingHTTPEventHeader (the bot's owner is told as well, see the action). */
export class MissingEventHeader extends ApiError {
  readonly header: string;
  /** The service's name in the notice, where it is not the integration's. */
  readonly service: string | undefined;
  constructor(header: string, service?: string) {
    super(`Missing the HTTP event header '${header}'`, { code: 'MISSING_HTTP_EVENT_HEADER', extra: { header } });
    this.header = header;
    this.service = service;
  }
}

/**
 * A payload the service sent without what the integration needs, which
 * usually means its webhook is set up wrong: answered with `error`, and the
 * bot's owner is told why in `notice` (at most once a day per bot, as
 * Zulip's send_rate_limited_pm_notification_to_bot_owner), which may name
 * the bot (`{bot_name}`) and the server's support address (`{support_email}`).
 */
export class MisconfiguredPayload extends ApiError {
  readonly notice: string;
  /** `cause`: the payload's own error (a missing field, say) that this one stands for. */
  constructor(msg: string, notice: string, cause?: ApiError) {
    super(msg, { code: 'BAD_REQUEST' });
    this.notice = notice;
    this.cause = cause;
  }
}

/**
 * A payload in a format the integration does not read, which the service
 * sends when set up to use another one: nothing is posted and the request
 * is answered with success, but the bot's owner is told, as for
 * MisconfiguredPayload (TeamCity's Slack-style payloads).
 */
export class IgnoredMisconfiguredPayload extends MisconfiguredPayload {
  constructor(notice: string) {
    super('Ignored payload of another format', notice);
  }
}

/**
 * An error met after some of a request's events had become messages. Zulip
 * sends each event's message as it goes (Updown's list of events, say), so
 * the messages before the error are sent, and the request is then answered
 * with the error itself (`cause`), as it would have been alone.
 */
export class AfterMessages extends ApiError {
  readonly messages: WebhookMessage[];
  declare readonly cause: ApiError;
  constructor(messages: WebhookMessage[], cause: ApiError) {
    super(cause.message, { code: cause.code, status: cause.status, extra: cause.extra, headers: cause.headers });
    this.messages = messages;
    this.cause = cause;
  }
}

/**
 * The messages of a request's events, one event after another: an ApiError
 * met after the first messages stops there and carries them (AfterMessages),
 * as Zulip's loops that send each event's message before reading the next.
 */
export function eventByEvent<T>(events: readonly T[], toMessage: (event: T) => WebhookMessage): WebhookMessage[] {
  const out: WebhookMessage[] = [];
  try {
    for (const event of events) out.push(toMessage(event));
  } catch (e) {
    throw stoppedAfter(out, e);
  }
  return out;
}

/** What to throw for an error `e` met after the messages `sent` (see AfterMessages). */
export function stoppedAfter(sent: WebhookMessage[], e: unknown): unknown {
  return sent.length > 0 && e instanceof ApiError ? new AfterMessages(sent, e) : e;
}

/** The event header of a request, or MissingEventHeader (`service`: the name its notice gives the service, where not the integration's). */
export function eventHeader(req: WebhookRequest, name: string, service?: string): string {
  const v = req.header(name);
  if (v === undefined) throw new MissingEventHeader(name, service);
  return v;
}

/** The JSON body as a payload. */
export function jsonPayload(req: WebhookRequest): Wild {
  return parsePayload(req.body);
}

/** A JSON-encoded boolean query parameter (Zulip's Json[bool]). */
export function boolParam(req: WebhookRequest, name: string, fallback: boolean): boolean {
  const v = req.param(name);
  if (v === undefined) return fallback;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw badRequest(`${name} is not a boolean`);
}

/** Python's urllib.parse.unquote: each run of %XX escapes decoded as UTF-8 (invalid bytes as U+FFFD); anything else kept. */
export function pyUnquote(s: string): string {
  if (!s.includes('%')) return s;
  return s.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A date as Python's datetime.fromisoformat reads it, written as Zulip's
 * `<time:...>` (datetime_to_global_time: its isoformat to the second, the
 * offset as given, Z as +00:00, none for a date without one).
 */
export function isoGlobalTime(w: Wild): string {
  const m = ISO.exec(w.str());
  if (!m) throw badRequest(`${w.name} is not a valid ISO datetime`);
  const [, y, mo, d, h = '00', mi = '00', s = '00', , tz] = m;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  const valid = date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(mo) - 1 && date.getUTCDate() === Number(d) && Number(h) < 24 && Number(mi) < 60 && Number(s) < 60;
  let offset = '';
  if (tz === 'Z') offset = '+00:00';
  else if (tz) {
    const digits = tz.slice(1).replace(':', '');
    offset = `${tz[0]}${digits.slice(0, 2)}:${digits.slice(2) || '00'}`;
  }
  if (!valid || Number(offset.slice(1, 3) || 0) > 23 || Number(offset.slice(4, 6) || 0) > 59) throw badRequest(`${w.name} is not a valid ISO datetime`);
  return `<time:${y}-${mo}-${d}T${h}:${mi}:${s}${offset}>`;
}

/** A required query-string or form parameter (Zulip's typed_endpoint): its absence is "Missing '<name>' argument". */
export function requiredParam(req: WebhookRequest, name: string): string {
  const v = req.param(name);
  if (v === undefined) throw missingArgument(name);
  return v;
}

/** A JSON document in a required parameter (Zulip's Json[...] parameters), as a Wild named "payload". */
export function jsonParam(req: WebhookRequest, name: string): Wild {
  const raw = requiredParam(req, name);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw badRequest(`Argument "${name}" is not valid JSON.`);
  }
  return new Wild('payload', value);
}
