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
 */
import type { Services } from '../services.ts';
import { ApiError, badRequest, requireAdmin, requireOwner } from '../lib/errors.ts';
import { nowSeconds, randomAlnum } from '../lib/util.ts';
import { sendEmail, emailSettings } from '../lib/email.ts';
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
  type InvitationRow,
} from '../store/invites.ts';
import { Groups, realmGroupSetting } from './group-settings.ts';
import { groupSetting } from './user-groups.ts';
import { canAddSubscribers, streamAccess } from './access.ts';
import { validEmail } from './users.ts';
import { emailNotAllowedReason } from './realm-domains.ts';
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

/** POST /invites. */
export async function inviteUsers(svc: Services, user: UserRow, input: InviteInput): Promise<void> {
  checkMemberOrAdmin(user);
  const result = await transaction(svc.store, async (tx) => {
    const realm = await realmById(tx, svc.realmId);
    const groups = await Groups.load(tx, svc.realmId);
    if (!groups.allows(user, realmGroupSetting(realm.settings_json, 'can_invite_users_group', groups))) throw badRequest('Insufficient permission');
    if (input.inviteAs === ROLE.MODERATOR) {
      if (user.role > ROLE.MODERATOR) throw requireAdmin();
    } else {
      checkRoleBasedPermissions(input.inviteAs, user, input.inviteAs === ROLE.OWNER || input.inviteAs === ROLE.ADMINISTRATOR);
    }
    if (!input.inviteeEmails) throw badRequest('You must specify at least one email address.');
    const emails = parseInviteeEmails(input.inviteeEmails);
    const settings = realmSettings(realm.settings_json);

    // Channels: visible to the caller; default channels, or ones they may add subscribers to.
    const realmCanAdd = realmGroupSetting(realm.settings_json, 'can_add_subscribers_group', groups);
    const streamIds: number[] = [];
    for (const id of input.streamIds) {
      const stream = await streamById(tx, svc.realmId, id);
      const access = stream && streamAccess(user, stream, !!(await subscription(tx, user.id, stream.id)), groups);
      if (!access || !access.metadata) throw badRequest(`Channel does not exist with id: ${id}. No invites were sent.`);
      if (!stream.is_default && !canAddSubscribers(user, access, groups, realmCanAdd)) {
        throw badRequest('You do not have permission to subscribe other users to channels.');
      }
      if (!streamIds.includes(id)) streamIds.push(id);
    }

    // Groups: ones the caller may add members to (as POST /user_groups/{id}/members).
    const groupIds: number[] = [];
    for (const id of input.groupIds) {
      const g = groups.byId.get(id);
      if (!g) throw badRequest('Invalid user group');
      if (g.is_system_group) throw badRequest('Insufficient permission');
      if (g.deactivated) throw badRequest('You can only change the settings of active user groups.');
      const ok =
        user.role <= ROLE.ADMINISTRATOR ||
        groups.allows(user, realmGroupSetting(realm.settings_json, 'can_manage_all_groups', groups)) ||
        groups.allows(user, groupSetting(g, 'can_manage_group', groups)) ||
        groups.allows(user, groupSetting(g, 'can_add_members_group', groups));
      if (!ok) throw badRequest('Insufficient permission');
      if (!groupIds.includes(id)) groupIds.push(id);
    }

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
      const refused = await emailNotAllowedReason(tx, svc.realmId, settings, email);
      if (refused) {
        invalid.push([email, refused, false]);
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

/** GET /invites: unexpired invitations the caller controls (administrators: all). */
export async function listInvites(svc: Services, user: UserRow): Promise<{ invites: Record<string, unknown>[] }> {
  checkMemberOrAdmin(user);
  const rows = await validInvitations(svc.store.db, svc.realmId, nowSeconds(), user.role <= ROLE.ADMINISTRATOR ? undefined : user.id);
  return { invites: rows.map(formatInvite) };
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
