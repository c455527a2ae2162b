/**
 * Email invitations: POST /invites, GET /invites, DELETE /invites/{id},
 * POST /invites/{id}/resend, and the `invites_changed` events they cause.
 *
 * Zulip's rules: guests and bots may not use these endpoints; sending needs
 * the organization's can_invite_users_group; invitations may only be for
 * roles as restricted as the caller's (owners by owners, administrators by
 * administrators, moderators by moderators and above); channels must be
 * default channels or ones the caller may add subscribers to; groups ones
 * the caller may add members to. Administrators manage every invitation,
 * others only their own. Each invitation gets an email with a registration
 * link `<EXTERNAL_URL>/accounts/do_confirm/<key>`.
 *
 * Reusable invitation links (POST /invites/multiuse, DELETE
 * /invites/multiuse/{id}; listed by GET /invites with is_multiuse) lead to
 * `<EXTERNAL_URL>/join/<key>/`, where a newcomer enters an address and gets
 * a confirmation email with a do_confirm link; the organization's
 * create_multiuse_invite_group may create them.
 */
import { cachedGroups } from './cache.ts';
import type { Services } from '../services.ts';
import { ApiError, badRequest, requireAdmin, requireOwner } from '../lib/errors.ts';
import { nowSeconds, randomAlnum } from '../lib/util.ts';
import { sendEmail, emailSettings } from '../lib/email.ts';
import { validEmail } from '../lib/email-address.ts';
import { transaction, type Tx } from '../store/db.ts';
import { realmById } from '../store/realm.ts';
import { streamById, subscription } from '../store/streams.ts';
import { ROLE, userByDeliveryEmail, userById, type UserRow } from '../store/users.ts';
import {
  adminAndBotIds,
  deleteInvitation,
  insertInvitation,
  invitationById,
  updateInvitation,
  validInvitations,
  insertMultiuseInvite,
  multiuseInviteById,
  multiuseInviteByKey,
  revokeMultiuseInvite,
  validMultiuseInvites,
  INVITATION_STATUS,
  OPEN_SIGNUP,
  type InvitationRow,
  type MultiuseInviteRow,
  type NewInvitation,
} from '../store/invites.ts';
import { notificationBot } from './system-bots.ts';
import { Groups, realmGroupSetting } from './group-settings.ts';
import { groupSetting } from './user-groups.ts';
import { canAddSubscribers, streamAccess } from './access.ts';
import { emailRefusal, INVITATION_REFUSALS, SIGNUP_REFUSALS } from './realm-domains.ts';
import { realmSettings } from '../lib/realm-settings.ts';

export const INVITE_AS_VALUES = [100, 200, 300, 400, 600] as const;
export const MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH = 8000;

export interface InviteInput {
  inviteeEmails: string | undefined;
  /** null: never expires; undefined: the server default. */
  expiresInMinutes: number | null | undefined;
  inviteAs: number;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  notifyReferrerOnJoin: boolean;
  welcomeMessageCustomText: string | undefined;
}

type InviteErrorTriple = [string, string, boolean];

function invitationFailed(msg: string, errors: InviteErrorTriple[], sentInvitations: boolean): ApiError {
  return new ApiError(msg, {
    code: 'INVITATION_FAILED',
    extra: { errors, sent_invitations: sentInvitations, license_limit_reached: false, daily_limit_reached: false },
  });
}

const noSuchInvitation = () => badRequest('No such invitation');

/** Zulip's require_member_or_admin. */
function checkMemberOrAdmin(user: UserRow): void {
  if (user.role === ROLE.GUEST) throw badRequest('Not allowed for guest users');
  if (user.is_bot) throw badRequest('This endpoint does not accept bot requests.');
}

/** Owners may be invited (or their invitations managed) only by owners; the other elevated roles need the role or above. */
function checkRoleBasedPermissions(invitedAs: number, user: UserRow, requireAdminRole: boolean): void {
  if (invitedAs === ROLE.OWNER && user.role !== ROLE.OWNER) throw requireOwner();
  if (requireAdminRole && user.role > ROLE.ADMINISTRATOR) throw requireAdmin();
}

/** Who may invite with which role: moderators need a moderator; administrators and owners an administrator (owners an owner). */
function checkInviteAs(inviteAs: number, user: UserRow): void {
  if (inviteAs === ROLE.MODERATOR) {
    if (user.role > ROLE.MODERATOR) throw requireAdmin();
  } else {
    checkRoleBasedPermissions(inviteAs, user, inviteAs === ROLE.OWNER || inviteAs === ROLE.ADMINISTRATOR);
  }
}

/** Splits on commas and newlines; `Name <address>` gives the address; duplicates once. */
export function parseInviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const m = /<(.*)>/.exec(part);
    out.add((m ? m[1] : part).trim());
  }
  return [...out];
}

function confirmationKey(): string {
  return randomAlnum(24).toLowerCase();
}

export function activationUrl(svc: Services, key: string): string {
  return `${svc.config.externalUrl}/accounts/do_confirm/${key}`;
}

async function notifyInvitesChanged(svc: Services, db: Tx, referrerId: number): Promise<number[]> {
  const ids = await adminAndBotIds(db, svc.realmId);
  if (!ids.includes(referrerId)) ids.push(referrerId);
  return ids;
}

async function sendInvitationEmail(svc: Services, inv: InvitationRow, referrer: UserRow, realmName: string): Promise<void> {
  const url = activationUrl(svc, inv.confirmation_key);
  const lines = [
    'Hi there,',
    '',
    `${referrer.full_name} (${referrer.delivery_email}) wants you to join them in the ${realmName} organization (${svc.config.externalUrl}).`,
    '',
    'To get started, open this link and create your account:',
    url,
  ];
  if (inv.expiry_date !== null) lines.push('', `This invitation expires on ${new Date(inv.expiry_date * 1000).toUTCString()}.`);
  try {
    await sendEmail(emailSettings(svc.config), {
      to: [inv.email],
      subject: `${referrer.full_name} invited you to ${realmName}`,
      text: lines.join('\n') + '\n',
      template: 'invitation',
    });
  } catch (err) {
    svc.log.error({ err, invitationId: inv.id }, 'invitation email failed');
  }
}

/**
 * The channels and groups an invitation may name: channels visible to the
 * caller (default channels, or ones they may add subscribers to) and groups
 * they may add members to (as POST /user_groups/{id}/members). Duplicates once.
 */
async function checkInviteTargets(
  svc: Services,
  tx: Tx,
  user: UserRow,
  realmSettingsJson: string,
  groups: Groups,
  wantedStreams: number[],
  wantedGroups: number[],
  noSuchChannel: (id: number) => string,
): Promise<{ streamIds: number[]; groupIds: number[] }> {
  const realmCanAdd = realmGroupSetting(realmSettingsJson, 'can_add_subscribers_group', groups);
  const streamIds: number[] = [];
  for (const id of wantedStreams) {
    const stream = await streamById(tx, svc.realmId, id);
    const access = stream && streamAccess(user, stream, !!(await subscription(tx, user.id, stream.id)), groups);
    if (!access || !access.metadata) throw badRequest(noSuchChannel(id));
    if (!stream.is_default && !canAddSubscribers(user, access, groups, realmCanAdd)) {
      throw badRequest('You do not have permission to subscribe other users to channels.');
    }
    if (!streamIds.includes(id)) streamIds.push(id);
  }
  const groupIds: number[] = [];
  for (const id of wantedGroups) {
    const g = groups.byId.get(id);
    if (!g) throw badRequest('Invalid user group');
    if (g.is_system_group) throw badRequest('Insufficient permission');
    if (g.deactivated) throw badRequest('You can only change the settings of active user groups.');
    const ok =
      user.role <= ROLE.ADMINISTRATOR ||
      groups.allows(user, realmGroupSetting(realmSettingsJson, 'can_manage_all_groups', groups)) ||
      groups.allows(user, groupSetting(g, 'can_manage_group', groups)) ||
      groups.allows(user, groupSetting(g, 'can_add_members_group', groups));
    if (!ok) throw badRequest('Insufficient permission');
    if (!groupIds.includes(id)) groupIds.push(id);
  }
  return { streamIds, groupIds };
}

/** POST /invites. */
export async function inviteUsers(svc: Services, user: UserRow, input: InviteInput): Promise<void> {
  checkMemberOrAdmin(user);
  const result = await transaction(svc.store, async (tx) => {
    const realm = await realmById(tx, svc.realmId);
    const groups = await cachedGroups(svc, tx);
    if (!groups.allows(user, realmGroupSetting(realm.settings_json, 'can_invite_users_group', groups))) throw badRequest('Insufficient permission');
    checkInviteAs(input.inviteAs, user);
    if (!input.inviteeEmails) throw badRequest('You must specify at least one email address.');
    const emails = parseInviteeEmails(input.inviteeEmails);
    const settings = realmSettings(realm.settings_json);

    const { streamIds, groupIds } = await checkInviteTargets(svc, tx, user, realm.settings_json, groups, input.streamIds, input.groupIds, (id) => `Channel does not exist with id: ${id}. No invites were sent.`);

    const welcomeText = user.role <= ROLE.ADMINISTRATOR ? (input.welcomeMessageCustomText ?? null) : null;

    // Addresses: invalid ones stop everything; existing accounts are skipped.
    const invalid: InviteErrorTriple[] = [];
    const skipped: InviteErrorTriple[] = [];
    const good: string[] = [];
    for (const email of emails) {
      if (email === '') continue;
      if (!validEmail(email)) {
        invalid.push([email, 'Invalid address.', false]);
        continue;
      }
      const refused = await emailRefusal(tx, svc.realmId, settings, email);
      if (refused) {
        invalid.push([email, INVITATION_REFUSALS[refused](email), false]);
        continue;
      }
      const existing = await userByDeliveryEmail(tx, svc.realmId, email);
      if (existing?.is_system_bot) skipped.push([email, 'Reserved for system bots.', false]);
      else if (existing?.is_active) skipped.push([email, 'Already has an account.', false]);
      else if (existing) skipped.push([email, 'Account has been deactivated.', true]);
      else good.push(email);
    }
    if (invalid.length) throw invitationFailed("Some emails did not validate, so we didn't send any invitations.", [...invalid, ...skipped], false);
    if (skipped.length && skipped.length === emails.length) throw invitationFailed("We weren't able to invite anyone.", skipped, false);

    const now = nowSeconds();
    const minutes = input.expiresInMinutes === undefined ? svc.config.invitationLinkValidityMinutes : input.expiresInMinutes;
    const created: InvitationRow[] = [];
    for (const email of good) {
      created.push(
        await insertInvitation(tx, {
          realm_id: svc.realmId,
          email,
          referred_by: user.id,
          invited_as: input.inviteAs,
          invited_at: now,
          expiry_date: minutes === null ? null : now + Math.round(minutes * 60),
          confirmation_key: confirmationKey(),
          stream_ids_json: JSON.stringify(streamIds),
          group_ids_json: JSON.stringify(groupIds),
          include_realm_default_subscriptions: input.includeRealmDefaultSubscriptions ? 1 : 0,
          notify_referrer_on_join: input.notifyReferrerOnJoin ? 1 : 0,
          welcome_message_custom_text: welcomeText,
        }),
      );
    }
    const recipients = created.length ? await notifyInvitesChanged(svc, tx, user.id) : [];
    return { created, recipients, skipped, realmName: realm.name };
  });

  if (result.recipients.length) svc.bus.send({ type: 'invites_changed' }, result.recipients);
  for (const inv of result.created) await sendInvitationEmail(svc, inv, user, result.realmName);
  if (result.skipped.length) {
    throw invitationFailed(
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      result.skipped,
      true,
    );
  }
}

function formatInvite(inv: InvitationRow): Record<string, unknown> {
  return {
    id: inv.id,
    invited_by_user_id: inv.referred_by,
    invited: inv.invited_at,
    expiry_date: inv.expiry_date,
    invited_as: inv.invited_as,
    email: inv.email,
    notify_referrer_on_join: !!inv.notify_referrer_on_join,
    is_multiuse: false,
  };
}

/** GET /invites: unexpired invitations and reusable links the caller controls (administrators: all), oldest first. */
export async function listInvites(svc: Services, user: UserRow): Promise<{ invites: Record<string, unknown>[] }> {
  checkMemberOrAdmin(user);
  const now = nowSeconds();
  const mine = user.role <= ROLE.ADMINISTRATOR ? undefined : user.id;
  const [rows, links] = await Promise.all([validInvitations(svc.store.db, svc.realmId, now, mine), validMultiuseInvites(svc.store.db, svc.realmId, now, mine)]);
  const all = [...rows.map((r) => ({ at: r.invited_at, dict: formatInvite(r) })), ...links.map((m) => ({ at: Number(m.date_created), dict: formatMultiuseInvite(svc, m) }))];
  return { invites: all.sort((a, b) => a.at - b.at).map((x) => x.dict) };
}

function formatMultiuseInvite(svc: Services, m: MultiuseInviteRow): Record<string, unknown> {
  return {
    id: m.id,
    invited_by_user_id: m.referred_by,
    invited: Number(m.date_created),
    expiry_date: m.expiry_date === null ? null : Number(m.expiry_date),
    invited_as: m.invited_as,
    link_url: multiuseLinkUrl(svc, m.confirmation_key),
    is_multiuse: true,
  };
}

/** Where a reusable invitation link leads: the sign-up page that asks for an email address. */
export function multiuseLinkUrl(svc: Services, key: string): string {
  return `${svc.config.externalUrl}/join/${key}/`;
}

export interface MultiuseInviteInput {
  expiresInMinutes: number | null | undefined;
  inviteAs: number;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  welcomeMessageCustomText: string | undefined;
}

/** POST /invites/multiuse: a reusable invitation link, for members of create_multiuse_invite_group. */
export async function createMultiuseInvite(svc: Services, user: UserRow, input: MultiuseInviteInput): Promise<{ invite_link: string }> {
  checkMemberOrAdmin(user);
  const result = await transaction(svc.store, async (tx) => {
    const realm = await realmById(tx, svc.realmId);
    const groups = await cachedGroups(svc, tx);
    if (!groups.allows(user, realmGroupSetting(realm.settings_json, 'create_multiuse_invite_group', groups))) throw badRequest('Insufficient permission');
    checkInviteAs(input.inviteAs, user);
    const { streamIds, groupIds } = await checkInviteTargets(svc, tx, user, realm.settings_json, groups, input.streamIds, input.groupIds, (id) => `Invalid channel ID ${id}. No invites were sent.`);
    const now = nowSeconds();
    const minutes = input.expiresInMinutes === undefined ? svc.config.invitationLinkValidityMinutes : input.expiresInMinutes;
    const row = await insertMultiuseInvite(tx, {
      realm_id: svc.realmId,
      referred_by: user.id,
      invited_as: input.inviteAs,
      date_created: now,
      expiry_date: minutes === null ? null : now + Math.round(minutes * 60),
      confirmation_key: confirmationKey(),
      stream_ids_json: JSON.stringify(streamIds),
      group_ids_json: JSON.stringify(groupIds),
      include_realm_default_subscriptions: input.includeRealmDefaultSubscriptions ? 1 : 0,
      welcome_message_custom_text: user.role <= ROLE.ADMINISTRATOR ? (input.welcomeMessageCustomText ?? null) : null,
    });
    return { row, recipients: await notifyInvitesChanged(svc, tx, user.id) };
  });
  svc.bus.send({ type: 'invites_changed' }, result.recipients);
  return { invite_link: multiuseLinkUrl(svc, result.row.confirmation_key) };
}

/** DELETE /invites/multiuse/{invite_id}: the link stops working. */
export async function revokeMultiuseInviteById(svc: Services, user: UserRow, id: number): Promise<void> {
  checkMemberOrAdmin(user);
  const recipients = await transaction(svc.store, async (tx) => {
    const m = await multiuseInviteById(tx, svc.realmId, id);
    if (!m) throw noSuchInvitation();
    if (m.referred_by !== user.id) checkRoleBasedPermissions(m.invited_as, user, true);
    if (m.status === INVITATION_STATUS.REVOKED) throw badRequest('Invitation has already been revoked');
    await revokeMultiuseInvite(tx, m.id);
    return notifyInvitesChanged(svc, tx, m.referred_by);
  });
  svc.bus.send({ type: 'invites_changed' }, recipients);
}

/** How long the email confirmation of a sign-up through a reusable link is valid (Zulip: 1 day). */
const SIGNUP_CONFIRMATION_VALIDITY_SECONDS = 24 * 3600;

export type MultiuseSignupState = { kind: 'invalid' } | { kind: 'expired' } | { kind: 'valid'; realmName: string };

/** What a reusable link's key currently leads to. */
export async function checkMultiuseKey(svc: Services, key: string): Promise<MultiuseSignupState> {
  if (!/^[A-Za-z0-9]{1,100}$/.test(key)) return { kind: 'invalid' };
  const m = await multiuseInviteByKey(svc.store.db, svc.realmId, key);
  if (!m) return { kind: 'invalid' };
  if (m.status !== INVITATION_STATUS.PENDING || (m.expiry_date !== null && Number(m.expiry_date) < nowSeconds())) return { kind: 'expired' };
  return { kind: 'valid', realmName: (await realmById(svc.store.db, svc.realmId)).name };
}

type SignupStart = { kind: 'sent'; email: string } | { kind: 'form_error'; realmName: string; error: string };

/**
 * A sign-up through a reusable link: the address gets a confirmation email
 * whose /accounts/do_confirm/ link finishes the registration with the link's
 * role, channels and groups (an `invitations` row tied to the link, not
 * listed among the invitations). Returns a message for the form on errors.
 */
export async function startMultiuseSignup(svc: Services, key: string, emailIn: string): Promise<MultiuseSignupState | SignupStart> {
  const state = await checkMultiuseKey(svc, key);
  if (state.kind !== 'valid') return state;
  const m = (await multiuseInviteByKey(svc.store.db, svc.realmId, key))!;
  return startSignup(svc, state.realmName, emailIn, { viaLink: true }, () => ({
    referred_by: m.referred_by,
    invited_as: m.invited_as,
    stream_ids_json: m.stream_ids_json,
    group_ids_json: m.group_ids_json,
    include_realm_default_subscriptions: m.include_realm_default_subscriptions,
    welcome_message_custom_text: m.welcome_message_custom_text,
    multiuse_id: m.id,
  }));
}

/**
 * A sign-up without an invitation (Zulip's /accounts/home/ and /register/):
 * refused while the organization's invite_required is on; otherwise the
 * address gets a confirmation email whose /accounts/do_confirm/ link creates
 * a member subscribed to the default channels. The pending row is an
 * `invitations` row referred by Notification Bot and marked OPEN_SIGNUP, so
 * it is never listed among the invitations.
 */
export async function startOpenSignup(svc: Services, emailIn: string): Promise<SignupStart> {
  const realmName = (await realmById(svc.store.db, svc.realmId)).name;
  const bot = await notificationBot(svc);
  return startSignup(svc, realmName, emailIn, { viaLink: false }, () => ({
    referred_by: bot.id,
    invited_as: ROLE.MEMBER,
    stream_ids_json: '[]',
    group_ids_json: '[]',
    include_realm_default_subscriptions: 1,
    welcome_message_custom_text: null,
    multiuse_id: OPEN_SIGNUP,
  }));
}

/** The organization's name and whether it refuses sign-ups without an invitation. */
export async function openSignupState(svc: Services): Promise<{ realmName: string; inviteRequired: boolean }> {
  const realm = await realmById(svc.store.db, svc.realmId);
  return { realmName: realm.name, inviteRequired: realmSettings(realm.settings_json).invite_required === true };
}

/** Zulip's HomepageForm checks on the address, then the pending row and its confirmation email. */
async function startSignup(
  svc: Services,
  realmName: string,
  emailIn: string,
  how: { viaLink: boolean },
  terms: () => Omit<NewInvitation, 'realm_id' | 'email' | 'invited_at' | 'expiry_date' | 'confirmation_key' | 'notify_referrer_on_join'>,
): Promise<SignupStart> {
  const email = emailIn.trim();
  const formError = (error: string) => ({ kind: 'form_error' as const, realmName, error });
  if (!validEmail(email)) return formError('Please enter a valid email address.');
  const settings = realmSettings((await realmById(svc.store.db, svc.realmId)).settings_json);
  if (!how.viaLink && settings.invite_required) return formError(`Please request an invite for ${email} from the organization administrator.`);
  const refused = await emailRefusal(svc.store.db, svc.realmId, settings, email);
  if (refused) return formError(SIGNUP_REFUSALS[refused](email));
  const existing = await userByDeliveryEmail(svc.store.db, svc.realmId, email);
  if (existing?.is_active) return formError('An account with this email address already exists. Log in instead.');
  if (existing) return formError('The account for this email address has been deactivated.');
  const inv = await transaction(svc.store, async (tx) => {
    const now = nowSeconds();
    return insertInvitation(tx, {
      ...terms(),
      realm_id: svc.realmId,
      email,
      invited_at: now,
      expiry_date: now + SIGNUP_CONFIRMATION_VALIDITY_SECONDS,
      confirmation_key: confirmationKey(),
      notify_referrer_on_join: 0,
    });
  });
  try {
    await sendEmail(emailSettings(svc.config), {
      to: [email],
      subject: `Activate your ${realmName} account`,
      text: ['Hi there,', '', `To finish creating your account in ${realmName} (${svc.config.externalUrl}), open this link:`, activationUrl(svc, inv.confirmation_key), '', 'This link expires in 1 day.'].join('\n') + '\n',
      template: 'confirm_registration',
    });
  } catch (err) {
    svc.log.error({ err, invitationId: inv.id }, 'sign-up confirmation email failed');
  }
  return { kind: 'sent', email };
}

async function accessInvitation(svc: Services, tx: Tx, user: UserRow, id: number): Promise<InvitationRow> {
  const inv = await invitationById(tx, svc.realmId, id);
  if (!inv) throw noSuchInvitation();
  if (inv.referred_by !== user.id) checkRoleBasedPermissions(inv.invited_as, user, true);
  return inv;
}

/** DELETE /invites/{invite_id}. */
export async function revokeInvite(svc: Services, user: UserRow, id: number): Promise<void> {
  checkMemberOrAdmin(user);
  const recipients = await transaction(svc.store, async (tx) => {
    const inv = await accessInvitation(svc, tx, user, id);
    await deleteInvitation(tx, inv.id);
    return notifyInvitesChanged(svc, tx, inv.referred_by);
  });
  svc.bus.send({ type: 'invites_changed' }, recipients);
}

/** POST /invites/{invite_id}/resend: a new link (the old one stops working) with the same expiry date. */
export async function resendInvite(svc: Services, user: UserRow, id: number): Promise<{ timestamp: number }> {
  checkMemberOrAdmin(user);
  const result = await transaction(svc.store, async (tx) => {
    const inv = await accessInvitation(svc, tx, user, id);
    const now = nowSeconds();
    const key = confirmationKey();
    await updateInvitation(tx, inv.id, { invited_at: now, confirmation_key: key });
    const referrer = inv.referred_by === user.id ? user : (await userById(tx, svc.realmId, inv.referred_by))!;
    const realm = await realmById(tx, svc.realmId);
    const recipients = await notifyInvitesChanged(svc, tx, inv.referred_by);
    return { inv: { ...inv, invited_at: now, confirmation_key: key }, referrer, realmName: realm.name, recipients, now };
  });
  svc.bus.send({ type: 'invites_changed' }, result.recipients);
  await sendInvitationEmail(svc, result.inv, result.referrer, result.realmName);
  return { timestamp: result.now };
}
