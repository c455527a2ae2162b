/** Creating users and bots, and the events that announce them. */
import { lockNamesOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import { badRequest } from '../lib/errors.ts';
import { hashPassword } from '../lib/passwords.ts';
import { newApiKey, nowSeconds } from '../lib/util.ts';
import { validEmail } from '../lib/email-address.ts';
import { realmUserDefaults } from '../lib/user-settings.ts';
import { realmById } from '../store/realm.ts';
import { emailSettings, sendEmail } from '../lib/email.ts';
import { emailTaken, insertUser, updateUser, ROLE, type UserRow } from '../store/users.ts';
import { inaccessibleUser, userIdsWhoCanAccess } from './user-access.ts';
import { canSeeDeliveryEmail, emailVisibility, formatUser, isAdminRole, publicEmail } from './users-format.ts';
import { transaction, type Tx } from '../store/db.ts';
import { streamsByIds, type StreamRow } from '../store/streams.ts';
import { FLAG, insertUserMessages, newestChannelMessageIds } from '../store/messages.ts';
import { botEventRecipients, formatBot } from './bots-format.ts';
import { addSubscriptionsTx, sendSubscriptionAddEvents } from './streams-create.ts';
import { defaultStreamIds } from './streams-default.ts';
import { loadChannelContext } from './streams-format.ts';
import { cachedUsers } from './cache.ts';

export interface CreateUserInput {
  email: string;
  fullName: string;
  password?: string | null;
  role?: number;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  timezone?: string;
  defaultSendingStreamId?: number | null;
  defaultEventsRegisterStreamId?: number | null;
  defaultAllPublicStreams?: boolean;
  /** Made through the API: date_joined is set again at the first login (Zulip's feature level 475). */
  joinsOnFirstLogin?: boolean;
  /**
   * Channels the new user is subscribed to in the transaction that creates
   * it: the organization's default channels unless given (none for bots).
   */
  channelIds?: number[];
  /**
   * More work that must commit with the account (an invitation's claim and
   * groups), run in its transaction after the account and its
   * subscriptions are written; an error in it creates nothing.
   */
  inTransaction?: (tx: Tx, user: UserRow) => Promise<void>;
}

/** Full names: 1..100 characters, no control characters (Zulip's check_full_name). */
export function checkFullName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw badRequest('Name too short!');
  if ([...trimmed].length > 100) throw badRequest('Name too long!');
  if (/\p{C}/u.test(trimmed) || /[*`\\>"@]/.test(trimmed)) throw badRequest('Invalid characters in name!');
  // Names ending like `|15` would be ambiguous in mention syntax.
  if (/\|\d+$/.test(name)) throw badRequest('Invalid format!');
  return trimmed;
}

/** Creates a user or bot, with its channels, in one transaction, then announces it. */
export async function createUser(svc: Services, input: CreateUserInput): Promise<UserRow> {
  const email = input.email.trim();
  if (!validEmail(email)) throw badRequest(`Invalid address: ${email}`);
  const fullName = checkFullName(input.fullName);
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const channelIds = input.isBot ? [] : (input.channelIds ?? (await defaultStreamIds(svc, svc.store.db)));
  // Who saw which channel before, for the subscription events (as every subscribing request does).
  const before = channelIds.length ? await loadChannelContext(svc, svc.store.db) : null;
  const streams = channelIds.length ? (await streamsByIds(svc.store.db, svc.realmId, channelIds)).filter((s) => !s.is_archived) : [];
  const { user, added } = await transaction(svc.store, async (tx) => {
    // Two accounts asked for one address at once: the second gets the error, not a 500 from the unique key (PostgreSQL).
    await lockNamesOf(svc.store, tx, 'users');
    if (await emailTaken(tx, svc.realmId, email)) throw badRequest(`Email '${email}' already in use`);
    const realm = await realmById(tx, svc.realmId);
    const settings = input.isBot ? {} : realmUserDefaults(realm.user_defaults_json);
    const row = await insertUser(tx, {
      realm_id: svc.realmId,
      email,
      delivery_email: email,
      full_name: fullName,
      password_hash: passwordHash,
      api_key: newApiKey(),
      role: input.role ?? ROLE.MEMBER,
      is_active: 1,
      is_bot: input.isBot ? 1 : 0,
      bot_type: input.isBot ? (input.botType ?? 1) : null,
      bot_owner_id: input.isBot ? (input.botOwnerId ?? null) : null,
      date_joined: nowSeconds(),
      timezone: input.timezone ?? '',
      settings_json: JSON.stringify(settings),
      default_sending_stream_id: input.defaultSendingStreamId ?? null,
      default_events_register_stream_id: input.defaultEventsRegisterStreamId ?? null,
      default_all_public_streams: input.defaultAllPublicStreams ? 1 : 0,
      joins_on_first_login: input.joinsOnFirstLogin ? 1 : 0,
    });
    const visibility = typeof settings.email_address_visibility === 'number' ? settings.email_address_visibility : 1;
    const pub = publicEmail(svc.config, row.id, email, visibility);
    if (pub !== row.email) {
      await updateUser(tx, row.id, { email: pub });
      row.email = pub;
    }
    const added = streams.length ? (await addSubscriptionsTx(tx, streams, [row])).added : [];
    if (!input.isBot) await addNewUserHistory(tx, row.id, streams);
    if (input.inTransaction) await input.inTransaction(tx, row);
    return { user: row, added };
  });
  await announceUser(svc, user);
  if (added.length) await sendSubscriptionAddEvents(svc, before, added, []);
  if (!user.is_bot) {
    try {
      await sendAccountRegisteredEmail(svc, user);
    } catch (err) {
      // The account exists: a mail that could not go out is logged, not an error of the request.
      svc.log.error({ err, userId: user.id }, 'account registered email failed');
    }
  }
  return user;
}

/**
 * The email a new account gets (Zulip's account_registered): where the
 * organization is and which address logs in. Never a password.
 */
async function sendAccountRegisteredEmail(svc: Services, user: UserRow): Promise<void> {
  const realm = await realmById(svc.store.db, svc.realmId);
  const url = svc.config.externalUrl;
  const text = [
    `Hello ${user.full_name},`,
    '',
    `Your account in the ${realm.name} organization is ready.`,
    '',
    `Organization URL: ${url}`,
    `Your account's email address: ${user.delivery_email}`,
    '',
    `Log in at ${url}/login/ in a browser, or give the organization URL to a Zulip app (mobile, desktop or terminal).`,
  ].join('\n');
  await sendEmail(emailSettings(svc.config), {
    to: [user.delivery_email],
    subject: `Welcome to ${realm.name}`,
    text: text + '\n',
    template: 'account_registered',
  });
}

/** How many of their channels' newest messages a new user finds in their feed, and how many of those unread (Zulip's). */
const NEW_USER_HISTORY = 1000;
const NEW_USER_HISTORY_UNREAD = 20;

/**
 * A new user's feed starts with the newest messages of the channels they
 * join whose history subscribers may read, flagged historical (as Zulip's
 * add_new_user_history does): the newest 20 unread, the others read. No
 * events: the user has no event queue yet.
 */
async function addNewUserHistory(tx: Tx, userId: number, streams: StreamRow[]): Promise<void> {
  const readable = streams.filter((s) => s.history_public_to_subscribers).map((s) => s.id);
  if (!readable.length) return;
  // The account is not committed yet, so no message can have given it a row already (Zulip checks, as its rows come after).
  const newest = await newestChannelMessageIds(tx, readable, NEW_USER_HISTORY);
  const rows = newest.map((id, i) => ({ user_id: userId, message_id: id, flags: FLAG.historical | (i < NEW_USER_HISTORY_UNREAD ? 0 : FLAG.read) }));
  await insertUserMessages(tx, rows.reverse());
}

/**
 * realm_user add to everyone (an "Unknown user" placeholder to those who may
 * not access the new user); realm_bot add to administrators and the bot's owner.
 */
export async function announceUser(svc: Services, user: UserRow): Promise<void> {
  const recipients = await userIdsWhoCanAccess(svc, user);
  // Its delivery_email goes to those the user's email_address_visibility lets see it; null to the rest.
  const knowing = new Set(recipients);
  const visibility = emailVisibility(user);
  const everyone = (await cachedUsers(svc)).list;
  const seeing = new Set(everyone.filter((u) => knowing.has(u.id) && canSeeDeliveryEmail(u, user, visibility)).map((u) => u.id));
  const withEmail = recipients.filter((id) => seeing.has(id));
  const withoutEmail = recipients.filter((id) => !seeing.has(id));
  const person = formatUser(svc.config, user, { viewer: null, clientGravatar: false });
  if (withEmail.length) svc.bus.send({ type: 'realm_user', op: 'add', person: { ...person, delivery_email: user.delivery_email } }, withEmail);
  if (withoutEmail.length) svc.bus.send({ type: 'realm_user', op: 'add', person }, withoutEmail);
  const others = everyone.filter((u) => u.is_active && !knowing.has(u.id)).map((u) => u.id);
  if (others.length) svc.bus.send({ type: 'realm_user', op: 'add', person: inaccessibleUser(svc.config, user.id) }, others, { meta: { inaccessibleUser: true } });
  if (user.is_bot) {
    svc.bus.send({ type: 'realm_bot', op: 'add', bot: await formatBot(svc, user) }, await botEventRecipients(svc, user));
  }
}

export { isAdminRole };
