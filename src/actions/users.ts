/** Creating users and bots, and the events that announce them. */
import { lockNamesOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import { badRequest } from '../lib/errors.ts';
import { hashPassword } from '../lib/passwords.ts';
import { newApiKey, nowSeconds } from '../lib/util.ts';
import { validEmail } from '../lib/email-address.ts';
import { realmUserDefaults } from '../lib/user-settings.ts';
import { realmById } from '../store/realm.ts';
import { activeUserIds, allUsers, emailTaken, insertUser, updateUser, ROLE, type UserRow } from '../store/users.ts';
import { inaccessibleUser, userIdsWhoCanAccess } from './user-access.ts';
import { canSeeDeliveryEmail, formatUser, isAdminRole, publicEmail } from './users-format.ts';
import { transaction } from '../store/db.ts';
import { botEventRecipients, formatBot } from './bots-format.ts';
import { subscribeToDefaultChannels } from './onboarding.ts';

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
  /** false: the caller subscribes the new user itself (e.g. from an invitation). */
  defaultChannels?: boolean;
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

/** Creates a user or bot in one transaction, then announces it. */
export async function createUser(svc: Services, input: CreateUserInput): Promise<UserRow> {
  const email = input.email.trim();
  if (!validEmail(email)) throw badRequest(`Invalid address: ${email}`);
  const fullName = checkFullName(input.fullName);
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const user = await transaction(svc.store, async (tx) => {
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
    });
    const visibility = typeof settings.email_address_visibility === 'number' ? settings.email_address_visibility : 1;
    const pub = publicEmail(svc.config, row.id, email, visibility);
    if (pub !== row.email) {
      await updateUser(tx, row.id, { email: pub });
      row.email = pub;
    }
    return row;
  });
  await announceUser(svc, user);
  if (!user.is_bot && input.defaultChannels !== false) await subscribeToDefaultChannels(svc, user);
  return user;
}

/**
 * realm_user add to everyone (an "Unknown user" placeholder to those who may
 * not access the new user); realm_bot add to administrators and the bot's owner.
 */
export async function announceUser(svc: Services, user: UserRow): Promise<void> {
  const recipients = await userIdsWhoCanAccess(svc, user);
  // Its delivery_email goes to those the user's email_address_visibility lets see it; null to the rest.
  const knowing = new Set(recipients);
  const seeing = new Set((await allUsers(svc.store.db, svc.realmId)).filter((u) => knowing.has(u.id) && canSeeDeliveryEmail(u, user)).map((u) => u.id));
  const withEmail = recipients.filter((id) => seeing.has(id));
  const withoutEmail = recipients.filter((id) => !seeing.has(id));
  const person = formatUser(svc.config, user, { viewer: null, clientGravatar: false });
  if (withEmail.length) svc.bus.send({ type: 'realm_user', op: 'add', person: { ...person, delivery_email: user.delivery_email } }, withEmail);
  if (withoutEmail.length) svc.bus.send({ type: 'realm_user', op: 'add', person }, withoutEmail);
  const others = (await activeUserIds(svc.store.db, svc.realmId)).filter((id) => !knowing.has(id));
  if (others.length) svc.bus.send({ type: 'realm_user', op: 'add', person: inaccessibleUser(svc.config, user.id) }, others, { meta: { inaccessibleUser: true } });
  if (user.is_bot) {
    svc.bus.send({ type: 'realm_bot', op: 'add', bot: await formatBot(svc, user) }, await botEventRecipients(svc, user));
  }
}

export { isAdminRole };
