/**
 * Bots: creating them (POST /bots), listing one's own (GET /bots), editing
 * (PATCH /bots/{id}), API keys and deactivation, with Zulip's rules and the
 * realm_bot / realm_user events.
 */
import { lockNamesOf } from '../store/locks.ts';
import type { Services } from '../services.ts';
import { badRequest } from '../lib/errors.ts';
import { newApiKey, nowSeconds, randomAlnum } from '../lib/util.ts';
import { validEmail } from '../lib/email-address.ts';
import { transaction, type Tx } from '../store/db.ts';
import { insertBotService, updateBotService } from '../store/bots.ts';
import {
  activeNameTaken,
  insertUser,
  updateUser,
  userByDeliveryEmail,
  userById,
  BOT_TYPE,
  ROLE,
  type UserPatch,
  type UserRow,
} from '../store/users.ts';
import { avatarUrl, emailVisibility, isAdminRole, publicEmail } from './users-format.ts';
import { announceEmailChange } from './email-change.ts';
import { botEventRecipients, checkBotCreationPolicy, defaultStreamNames, formatBot, mayCreateAnyBot, sendBotOwnerEvents } from './bots-format.ts';
import { cachedBots, cachedStreams } from './cache.ts';
import { avatarImages, setUploadedAvatar, writeAvatarImages, type AvatarImages } from './avatars.ts';
import type { UploadedFile } from '../lib/uploaded-file.ts';
import { announceUser, checkFullName } from './users.ts';
import { accessStreamByName } from './access.ts';
import {
  canAdminUser,
  changeFullName,
  changeRole,
  checkRoleChangeAllowed,
  deactivateAccount,
  insufficientPermission,
  regenerateApiKey,
} from './users-admin.ts';

/** Outgoing webhook interfaces: 1 generic (Zulip format), 2 Slack-compatible. */
export const SERVICE_INTERFACES: readonly number[] = [1, 2];

/** Zulip's require_member_or_admin: no guests, no bots. */
export function requireMemberOrAdmin(me: UserRow): void {
  if (me.role === ROLE.GUEST) throw badRequest('Not allowed for guest users');
  if (me.is_bot) throw badRequest('This endpoint does not accept bot requests.');
}

async function checkValidBotType(svc: Services, me: UserRow, botType: number): Promise<void> {
  const allowed: number[] = [];
  // Zulip's allowed_bot_types: generic bots for administrators and can_create_bots_group.
  if (isAdminRole(me.role) || (await mayCreateAnyBot(svc, me))) allowed.push(BOT_TYPE.GENERIC);
  allowed.push(BOT_TYPE.INCOMING_WEBHOOK, BOT_TYPE.OUTGOING_WEBHOOK);
  if (!allowed.includes(botType)) throw badRequest('Invalid bot type');
}

/** The email domain of bots (realm_bot_domain). */
export function botDomain(svc: Services): string {
  return new URL(svc.config.externalUrl).hostname;
}

/**
 * A bot's default channel given by name (default_sending_stream,
 * default_events_register_stream): one the acting user may read, as Zulip's
 * access_stream_by_name; '' or nothing is none.
 */
async function defaultStreamId(svc: Services, me: UserRow, name: string | undefined): Promise<number | null> {
  if (name === undefined || name === '') return null;
  const access = await accessStreamByName(svc, svc.store.db, me, name);
  if (!access.content || access.stream.is_archived) throw badRequest(`Invalid channel name '${name}'`);
  return access.stream.id;
}

export interface CreateBotInput {
  fullName: string;
  shortName: string;
  botType: number;
  payloadUrl: string;
  serviceName?: string;
  interfaceType: number;
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
  /** The request's uploaded files: one, an image, becomes the bot's avatar (as Zulip's). */
  files?: UploadedFile[];
}

/** A bot's avatar from a request's uploaded files: none, or one image, checked and cropped (Zulip's error for more than one). */
async function botAvatar(files: UploadedFile[] | undefined): Promise<AvatarImages | undefined> {
  const real = (files ?? []).filter((f) => f.filename !== '');
  if (real.length === 0) return undefined;
  if (real.length > 1) throw badRequest('You may only upload one file at a time');
  return avatarImages(real, 'You may only upload one file at a time');
}

/** A bot's address from its short name (`<short_name>-bot@<bot domain>`), with Zulip's error for a bad one. */
function botEmail(svc: Services, shortName: string): string {
  const short = shortName.trim();
  if (short.length === 0) throw badRequest('Bad name or username');
  const email = `${short}-bot@${botDomain(svc)}`;
  if (!validEmail(email)) throw badRequest('Bad name or username');
  return email;
}

/** POST /bots. */
export async function createBot(svc: Services, me: UserRow, input: CreateBotInput): Promise<Record<string, unknown>> {
  requireMemberOrAdmin(me);
  return createBotFor(svc, me, input);
}

/** A bot's new address must be no account's (active or not). */
async function refuseTakenBotEmail(svc: Services, db: Tx, email: string): Promise<void> {
  if (await userByDeliveryEmail(db, svc.realmId, email)) throw badRequest('Username already in use');
}

/** A new bot's address and name must be free (checked first, as Zulip does, and again in the creating transaction). */
async function refuseTakenBotIdentity(svc: Services, db: Tx, email: string, fullName: string): Promise<void> {
  await refuseTakenBotEmail(svc, db, email);
  if (await activeNameTaken(db, svc.realmId, fullName)) throw badRequest('Name is already in use!');
}

/** Creates a bot owned by `owner` (also used by the admin command line). */
export async function createBotFor(svc: Services, owner: UserRow, input: CreateBotInput): Promise<Record<string, unknown>> {
  const shortName = input.shortName.trim();
  if (shortName.length === 0) throw badRequest('Bad name or username');
  const serviceName = input.botType !== BOT_TYPE.INCOMING_WEBHOOK ? input.serviceName || shortName : input.serviceName;
  const fullName = checkFullName(input.fullName);
  const email = botEmail(svc, shortName);
  if (input.botType === BOT_TYPE.EMBEDDED) throw badRequest('Embedded bots are not enabled.');
  await refuseTakenBotIdentity(svc, svc.store.db, email, fullName);
  await checkBotCreationPolicy(svc, owner, input.botType);
  await checkValidBotType(svc, owner, input.botType);
  if (!SERVICE_INTERFACES.includes(input.interfaceType)) throw badRequest('Invalid interface type');
  const avatar = await botAvatar(input.files);
  const defaultSendingStreamId = await defaultStreamId(svc, owner, input.defaultSendingStream);
  const defaultEventsRegisterStreamId = await defaultStreamId(svc, owner, input.defaultEventsRegisterStream);

  const bot = await transaction(svc.store, async (tx) => {
    // Checked again under the lock account creation takes: two bots asked for at once get one name.
    await lockNamesOf(svc.store, tx, 'users');
    await refuseTakenBotIdentity(svc, tx, email, fullName);
    const row = await insertUser(tx, {
      realm_id: svc.realmId,
      email,
      delivery_email: email,
      full_name: fullName,
      password_hash: null,
      api_key: newApiKey(),
      role: ROLE.MEMBER,
      is_active: 1,
      is_bot: 1,
      bot_type: input.botType,
      bot_owner_id: owner.id,
      date_joined: nowSeconds(),
      timezone: '',
      settings_json: '{}',
      default_all_public_streams: input.defaultAllPublicStreams ? 1 : 0,
      default_sending_stream_id: defaultSendingStreamId,
      default_events_register_stream_id: defaultEventsRegisterStreamId,
      ...(avatar ? { avatar_source: 'U' } : {}),
    });
    // Its avatar is stored before the bot is committed (a failed write creates no bot).
    if (avatar) await writeAvatarImages(svc, row, avatar);
    if (input.botType === BOT_TYPE.OUTGOING_WEBHOOK) {
      await insertBotService(tx, {
        user_id: row.id,
        name: serviceName ?? `${shortName}-bot`,
        base_url: input.payloadUrl,
        interface: input.interfaceType,
        token: randomAlnum(32),
      });
    }
    return row;
  });
  await announceUser(svc, bot);
  return {
    user_id: bot.id,
    api_key: bot.api_key,
    avatar_url: avatarUrl(svc.config, bot, false),
    ...defaultStreamNames(bot, await cachedStreams(svc)),
    default_all_public_streams: !!bot.default_all_public_streams,
  };
}

/** GET /bots: the caller's active bots, oldest first. */
export async function listOwnBots(svc: Services, me: UserRow): Promise<{ bots: Record<string, unknown>[] }> {
  requireMemberOrAdmin(me);
  const bots = (await cachedBots(svc, me.id)).filter((b) => b.is_active);
  bots.sort((a, b) => a.date_joined - b.date_joined || a.id - b.id);
  const streams = await cachedStreams(svc);
  return {
    bots: bots.map((b) => ({
      username: b.email,
      full_name: b.full_name,
      api_key: b.api_key,
      avatar_url: avatarUrl(svc.config, b, false),
      ...defaultStreamNames(b, streams),
      default_all_public_streams: !!b.default_all_public_streams,
    })),
  };
}

/** Zulip's access_bot_by_id. */
export async function accessBotById(svc: Services, me: UserRow, botId: number): Promise<UserRow> {
  const bot = await userById(svc.store.db, svc.realmId, botId);
  if (!bot || !bot.is_bot) throw badRequest('No such bot');
  if (!canAdminUser(me, bot)) throw insufficientPermission();
  return bot;
}

/** The user who would own a bot: an active human of the organization. */
async function checkBotOwner(svc: Services, ownerId: number): Promise<UserRow> {
  const owner = await userById(svc.store.db, svc.realmId, ownerId);
  if (!owner) throw badRequest('Failed to change owner, no such user');
  if (!owner.is_active) throw badRequest('Failed to change owner, user is deactivated');
  if (owner.is_bot) throw badRequest("Failed to change owner, bots can't own other bots");
  return owner;
}

/** Changes a bot's owner (to one checkBotOwner returned), with the events. */
async function changeBotOwner(svc: Services, bot: UserRow, owner: UserRow): Promise<void> {
  if (bot.bot_owner_id === owner.id) return;
  const previous = bot.bot_owner_id ? ((await userById(svc.store.db, svc.realmId, bot.bot_owner_id)) ?? null) : null;
  await transaction(svc.store, (tx) => updateUser(tx, bot.id, { bot_owner_id: owner.id }));
  await sendBotOwnerEvents(svc, { ...bot, bot_owner_id: owner.id }, owner, previous);
}

export interface PatchBotInput {
  fullName?: string;
  shortName?: string;
  role?: number;
  botOwnerId?: number;
  servicePayloadUrl?: string;
  serviceInterface: number;
  configData?: Record<string, string>;
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
  /** The request's uploaded files: one, an image, becomes the bot's avatar (as Zulip's). */
  files?: UploadedFile[];
}

/** PATCH /bots/{bot_id}. */
export async function patchBot(svc: Services, me: UserRow, botId: number, input: PatchBotInput): Promise<Record<string, unknown>> {
  requireMemberOrAdmin(me);
  let bot = await accessBotById(svc, me, botId);
  // Every check first, in Zulip's order: a refused request changes nothing.
  let name = input.fullName !== undefined ? checkFullName(input.fullName) : undefined;
  if (name === bot.full_name) name = undefined;
  if (name !== undefined && (await activeNameTaken(svc.store.db, svc.realmId, name))) throw badRequest('Name is already in use!');
  let email = input.shortName !== undefined ? botEmail(svc, input.shortName) : undefined;
  if (email !== undefined && email.toLowerCase() === bot.delivery_email.toLowerCase()) email = undefined;
  if (email !== undefined) await refuseTakenBotEmail(svc, svc.store.db, email);
  const role = input.role !== undefined && input.role !== bot.role ? input.role : undefined;
  if (role !== undefined) checkRoleChangeAllowed(me, bot, role);
  const owner = input.botOwnerId !== undefined ? await checkBotOwner(svc, input.botOwnerId) : undefined;
  const sendingStreamId = input.defaultSendingStream !== undefined ? await defaultStreamId(svc, me, input.defaultSendingStream) : undefined;
  const registerStreamId =
    input.defaultEventsRegisterStream !== undefined ? await defaultStreamId(svc, me, input.defaultEventsRegisterStream) : undefined;
  if (input.servicePayloadUrl !== undefined && !SERVICE_INTERFACES.includes(input.serviceInterface)) throw badRequest('Invalid interface type');
  const avatar = await botAvatar(input.files);

  if (name !== undefined) await changeFullName(svc, bot, name);
  if (email !== undefined) await changeBotEmail(svc, (bot = await reloadBot(svc, bot.id)), email);
  if (role !== undefined) await changeRole(svc, bot, role);
  if (owner !== undefined) await changeBotOwner(svc, (bot = await reloadBot(svc, bot.id)), owner);
  if (sendingStreamId !== undefined) await changeBotDefault(svc, bot.id, 'default_sending_stream', { default_sending_stream_id: sendingStreamId });
  if (registerStreamId !== undefined) {
    await changeBotDefault(svc, bot.id, 'default_events_register_stream', { default_events_register_stream_id: registerStreamId });
  }
  if (input.defaultAllPublicStreams !== undefined) {
    await changeBotDefault(svc, bot.id, 'default_all_public_streams', { default_all_public_streams: input.defaultAllPublicStreams ? 1 : 0 });
  }
  if (input.servicePayloadUrl !== undefined) {
    if (bot.bot_type === BOT_TYPE.OUTGOING_WEBHOOK) {
      await transaction(svc.store, (tx) => updateBotService(tx, bot.id, { base_url: input.servicePayloadUrl!, interface: input.serviceInterface }));
      const fresh = await reloadBot(svc, bot.id);
      const services = (await formatBot(svc, fresh)).services;
      svc.bus.send({ type: 'realm_bot', op: 'update', bot: { user_id: bot.id, services } }, await botEventRecipients(svc, fresh));
    }
  }
  if (avatar) await setUploadedAvatar(svc, await reloadBot(svc, bot.id), avatar);
  bot = await reloadBot(svc, bot.id);
  const out: Record<string, unknown> = {
    full_name: bot.full_name,
    avatar_url: avatarUrl(svc.config, bot, false),
    service_interface: input.serviceInterface,
    service_payload_url: input.servicePayloadUrl ?? null,
    config_data: input.configData ?? null,
    ...defaultStreamNames(bot, await cachedStreams(svc)),
    default_all_public_streams: !!bot.default_all_public_streams,
  };
  if (bot.bot_owner_id !== null) {
    const owner = await userById(svc.store.db, svc.realmId, bot.bot_owner_id);
    if (owner) out.bot_owner = owner.email;
  }
  return out;
}

/**
 * Gives a bot the address a new short name makes (PATCH /bots `short_name`,
 * feature level 447), checked again under the lock account creation takes,
 * with the realm_user events of an address change (no realm_bot update since
 * feature level 474).
 */
async function changeBotEmail(svc: Services, bot: UserRow, email: string): Promise<void> {
  const apiEmail = publicEmail(svc.config, bot.id, email, emailVisibility(bot));
  await transaction(svc.store, async (tx) => {
    await lockNamesOf(svc.store, tx, 'users');
    await refuseTakenBotEmail(svc, tx, email);
    await updateUser(tx, bot.id, { delivery_email: email, email: apiEmail });
  });
  await announceEmailChange(svc, bot, { ...bot, delivery_email: email, email: apiEmail });
}

/**
 * Stores one of a bot's defaults and sends its realm_bot update, even when
 * the value is the same (as Zulip's do_change_default_* do).
 */
async function changeBotDefault(
  svc: Services,
  botId: number,
  field: 'default_sending_stream' | 'default_events_register_stream' | 'default_all_public_streams',
  patch: UserPatch,
): Promise<void> {
  await transaction(svc.store, (tx) => updateUser(tx, botId, patch));
  const bot = await reloadBot(svc, botId);
  const value = field === 'default_all_public_streams' ? !!bot.default_all_public_streams : defaultStreamNames(bot, await cachedStreams(svc))[field];
  svc.bus.send({ type: 'realm_bot', op: 'update', bot: { user_id: botId, [field]: value } }, await botEventRecipients(svc, bot));
}

async function reloadBot(svc: Services, id: number): Promise<UserRow> {
  const bot = await userById(svc.store.db, svc.realmId, id);
  if (!bot) throw badRequest('No such bot');
  return bot;
}

/** GET /bots/{bot_id}/api_key: the bot's current key, for its owner and administrators. */
export async function getBotApiKey(svc: Services, me: UserRow, botId: number): Promise<{ api_key: string }> {
  requireMemberOrAdmin(me);
  const bot = await accessBotById(svc, me, botId);
  return { api_key: bot.api_key };
}

/** POST /bots/{bot_id}/api_key/regenerate. */
export async function regenerateBotApiKey(svc: Services, me: UserRow, botId: number): Promise<{ api_key: string }> {
  requireMemberOrAdmin(me);
  const bot = await accessBotById(svc, me, botId);
  return { api_key: await regenerateApiKey(svc, bot) };
}

/** DELETE /bots/{bot_id}. */
export async function deactivateBot(svc: Services, me: UserRow, botId: number): Promise<void> {
  const bot = await accessBotById(svc, me, botId);
  await deactivateAccount(svc, bot);
}
