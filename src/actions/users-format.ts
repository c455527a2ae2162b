/** The Zulip user object (GET /users, realm_user state and events). */
import type { Config } from '../config.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import { isoFromSeconds, md5Hex } from '../lib/util.ts';
import { userSettingsOf } from '../lib/user-settings.ts';

export const isAdminRole = (role: number): boolean => role <= ROLE.ADMINISTRATOR;
export const isModeratorOrAbove = (role: number): boolean => role <= ROLE.MODERATOR;

/** The user's email_address_visibility (read through the settings kept with the row: GET /users asks it of every user). */
export function emailVisibility(u: UserRow): number {
  const v = userSettingsOf(u).email_address_visibility;
  return typeof v === 'number' ? v : 1;
}

/**
 * Whether a user of this role may see the real addresses of users with this
 * email_address_visibility (Zulip's ROLE_TO_ACCESSIBLE_EMAIL_ADDRESS_VISIBILITY_IDS).
 */
export function roleMaySeeEmails(role: number, visibility: number): boolean {
  switch (visibility) {
    case 1:
      return true;
    case 2:
      return role !== ROLE.GUEST;
    case 5:
      return role <= ROLE.MODERATOR;
    case 3:
      return role <= ROLE.ADMINISTRATOR;
    default:
      return false;
  }
}

/** Whether `viewer` may see `target`'s real (delivery) email address (`visibility`: the target's, when already read, for many viewers). */
export function canSeeDeliveryEmail(viewer: UserRow | null, target: UserRow, visibility?: number): boolean {
  if (!viewer) return false;
  if (viewer.id === target.id) return true;
  return roleMaySeeEmails(viewer.role, visibility ?? emailVisibility(target));
}

/** The public `email` a user is known by: the real address, or a stable dummy one. */
export function publicEmail(config: Config, userId: number, deliveryEmail: string, visibility: number): string {
  if (visibility === 1) return deliveryEmail;
  return `user${userId}@${new URL(config.externalUrl).hostname}`;
}

/** The user ID in a dummy address of the form publicEmail makes (`user<id>@<host>`), or undefined. */
export function dummyEmailUserId(config: Config, email: string): number | undefined {
  const host = new URL(config.externalUrl).hostname;
  const m = /^user(\d+)@(.*)$/.exec(email);
  return m && m[2] === host ? Number(m[1]) : undefined;
}

/**
 * Whether an address a client gave names `target`, as Zulip's
 * access_user_by_email (feature level 302): a dummy address names the user
 * of its ID, whatever their email visibility; a real address names its user
 * only when that user's email_address_visibility lets the viewer's role see
 * it (also for the viewer's own address).
 */
export function givenEmailNames(config: Config, viewer: UserRow, target: UserRow, email: string): boolean {
  const dummyId = dummyEmailUserId(config, email);
  if (dummyId !== undefined) return target.id === dummyId;
  return target.delivery_email.toLowerCase() === email.trim().toLowerCase() && roleMaySeeEmails(viewer.role, emailVisibility(target));
}

export function avatarUrl(config: Config, u: UserRow, clientGravatar: boolean): string | null {
  if (u.avatar_source === 'U') return `${config.externalUrl}/user_avatars/${u.realm_id}/${u.id}.png?version=${u.avatar_version}`;
  if (clientGravatar) return null;
  return `https://secure.gravatar.com/avatar/${gravatarHash(u.delivery_email)}?d=identicon&version=${u.avatar_version}`;
}

/** Gravatar's hash of an email address, remembered (a message list names the same senders again and again). */
const gravatarHashes = new Map<string, string>();
function gravatarHash(email: string): string {
  let h = gravatarHashes.get(email);
  if (h === undefined) {
    h = md5Hex(email.toLowerCase());
    if (gravatarHashes.size >= 10_000) gravatarHashes.clear();
    gravatarHashes.set(email, h);
  }
  return h;
}

export interface FormatOptions {
  viewer: UserRow | null;
  clientGravatar: boolean;
  /** Custom profile field values keyed by field ID, for non-bots when requested. */
  profileData?: Record<string, { value: string; rendered_value?: string }>;
  /** Leave out is_imported_stub (GET /users/me has no such field). */
  withoutImportedStub?: boolean;
}

export function formatUser(config: Config, u: UserRow, opts: FormatOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {
    email: u.email,
    user_id: u.id,
    avatar_version: u.avatar_version,
    is_admin: isAdminRole(u.role),
    is_owner: u.role === ROLE.OWNER,
    is_guest: u.role === ROLE.GUEST,
    role: u.role,
    is_bot: !!u.is_bot,
    full_name: u.full_name,
    timezone: u.timezone,
    is_active: !!u.is_active,
    date_joined: isoFromSeconds(u.date_joined),
    delivery_email: canSeeDeliveryEmail(opts.viewer, u) ? u.delivery_email : null,
    avatar_url: avatarUrl(config, u, opts.clientGravatar),
  };
  if (!opts.withoutImportedStub) out.is_imported_stub = !!u.is_imported_stub;
  if (u.is_bot) {
    out.bot_type = u.bot_type;
    out.bot_owner_id = u.bot_owner_id;
  } else if (opts.profileData) {
    out.profile_data = opts.profileData;
  }
  return out;
}
