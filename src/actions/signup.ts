/**
 * Accepting an email invitation (the registration link
 * `<EXTERNAL_URL>/accounts/do_confirm/<key>` of POST /invites).
 *
 * As Zulip's registration does: the account gets the invited role; it is
 * subscribed to the invitation's channels (plus the organization's default
 * channels only when include_realm_default_subscriptions) and added to its
 * groups; the invitation is marked used and other pending invitations to the
 * same address revoked (invites_changed to administrators and the
 * referrers); the referrer gets a Notification Bot direct message when
 * notify_referrer_on_join; Notification Bot posts "... joined this
 * organization." to signup_announcements_stream_id when one is set.
 *
 * The account, its claim of the invitation (a check-and-set update: two
 * submissions of one key create at most one account), the invitation's
 * bookkeeping, channels and groups are one transaction; the events and the
 * messages follow its commit.
 */
import { cachedActiveUserIds, cachedGroups } from './cache.ts';
import type { Services } from '../services.ts';
import { ApiError } from '../lib/errors.ts';
import { nowSeconds } from '../lib/util.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import type { Tx } from '../store/db.ts';
import { realmById } from '../store/realm.ts';
import { addGroupMembers } from '../store/groups.ts';
import { userByDeliveryEmail, userById, type UserRow } from '../store/users.ts';
import {
  INVITATION_STATUS,
  adminAndBotIds,
  claimInvitation,
  completeInvitation,
  invitationByKey,
  type InvitationRow,
} from '../store/invites.ts';
import { checkFullName, createUser } from './users.ts';
import { passwordStrongEnough } from '../lib/passwords.ts';
import { defaultStreamIds } from './streams-default.ts';
import { notificationBot, silentMention } from './system-bots.ts';
import { sendMessage } from './messages.ts';
import { sendWelcomeMessages } from './welcome-bot.ts';

export type ConfirmationState =
  | { kind: 'invalid' }
  | { kind: 'expired' }
  | { kind: 'used'; email: string }
  | { kind: 'valid'; invitation: InvitationRow; realmName: string };

export type SignupResult =
  | ConfirmationState
  | { kind: 'form_error'; invitation: InvitationRow; realmName: string; error: string }
  | { kind: 'created'; user: UserRow; realmName: string };

const KEY_RE = /^[A-Za-z0-9]{1,100}$/;

/** What a registration key currently leads to. */
export async function checkConfirmationKey(svc: Services, key: string): Promise<ConfirmationState> {
  if (!KEY_RE.test(key)) return { kind: 'invalid' };
  const db = svc.store.db;
  const inv = await invitationByKey(db, svc.realmId, key);
  if (!inv) return { kind: 'invalid' };
  if (inv.status === INVITATION_STATUS.USED) return { kind: 'used', email: inv.email };
  if (inv.status !== INVITATION_STATUS.PENDING) return { kind: 'expired' };
  if (inv.expiry_date !== null && Number(inv.expiry_date) < nowSeconds()) return { kind: 'expired' };
  const existing = await userByDeliveryEmail(db, svc.realmId, inv.email);
  if (existing) return { kind: 'used', email: inv.email };
  const realm = await realmById(db, svc.realmId);
  return { kind: 'valid', invitation: inv, realmName: realm.name };
}

const errorMessage = (e: unknown): string | null => (e instanceof ApiError ? String(e.body().msg) : null);

/** POST /accounts/do_confirm/<key>: validates the form, creates the account and applies the invitation. */
export async function acceptInvitation(svc: Services, key: string, input: { fullName: string; password: string }): Promise<SignupResult> {
  const state = await checkConfirmationKey(svc, key);
  if (state.kind !== 'valid') return state;
  const { invitation: inv, realmName } = state;
  const formError = (error: string): SignupResult => ({ kind: 'form_error', invitation: inv, realmName, error });

  let fullName: string;
  try {
    fullName = checkFullName(input.fullName);
  } catch (e) {
    const msg = errorMessage(e);
    if (msg === null) throw e;
    return formError(msg);
  }
  if (!input.password) return formError('Please enter a password.');
  if (!(await passwordStrongEnough(input.password))) return formError('The password is too weak.');

  const channelIds = new Set(idList(inv.stream_ids_json));
  if (inv.include_realm_default_subscriptions) for (const id of await defaultStreamIds(svc, svc.store.db)) channelIds.add(id);
  let referrers: number[] = [];
  let groupIds: number[] = [];
  let user: UserRow;
  try {
    user = await createUser(svc, {
      email: inv.email,
      fullName,
      password: input.password,
      role: inv.invited_as,
      channelIds: [...channelIds],
      inTransaction: async (tx, created) => {
        // Check-and-set: only one submission of the key commits.
        if (!(await claimInvitation(tx, inv.id))) throw new InvitationTaken();
        referrers = await completeInvitation(tx, svc.realmId, inv.id, inv.email, created.id);
        groupIds = await addToInvitedGroups(svc, tx, inv, created);
      },
    });
  } catch (e) {
    if (e instanceof InvitationTaken) {
      const now = await checkConfirmationKey(svc, key);
      return now.kind === 'valid' ? formError('Please try again.') : now;
    }
    if (await userByDeliveryEmail(svc.store.db, svc.realmId, inv.email)) return { kind: 'used', email: inv.email };
    const msg = errorMessage(e);
    if (msg === null) throw e;
    return formError(msg);
  }

  // Events and messages: the account exists, so a failure in one is logged, not shown.
  const steps: Array<[string, () => Promise<void>]> = [
    ['invitation events', () => sendInvitationEvents(svc, inv, referrers)],
    ['group events', () => sendGroupEvents(svc, groupIds, user)],
    ['referrer notification', () => notifyReferrer(svc, inv, user, realmName)],
    ['signup announcement', () => announceSignup(svc, user)],
    ['welcome bot', async () => void (await sendWelcomeMessages(svc, user, inv.welcome_message_custom_text))],
  ];
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (err) {
      svc.log.error({ err, invitationId: inv.id, userId: user.id }, `signup: ${name} failed`);
    }
  }
  return { kind: 'created', user, realmName };
}

/** Another submission of the key claimed the invitation first (or it was revoked meanwhile). */
class InvitationTaken extends Error {}

/** invites_changed to administrators, bots and the referrers of the invitation and of those it revoked. */
async function sendInvitationEvents(svc: Services, inv: InvitationRow, referrers: number[]): Promise<void> {
  const recipients = await adminAndBotIds(svc.store.db, svc.realmId);
  for (const r of [inv.referred_by, ...referrers]) if (!recipients.includes(r)) recipients.push(r);
  svc.bus.send({ type: 'invites_changed' }, recipients);
}

function idList(json: string): number[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is number => Number.isInteger(x)) : [];
  } catch {
    return [];
  }
}

/** Adds the new user to the invitation's groups (those still active and not system groups); their IDs. */
async function addToInvitedGroups(svc: Services, tx: Tx, inv: InvitationRow, user: UserRow): Promise<number[]> {
  const wanted = idList(inv.group_ids_json);
  if (wanted.length === 0) return [];
  const groups = await cachedGroups(svc, tx);
  const out: number[] = [];
  for (const id of wanted) {
    const g = groups.byId.get(id);
    if (!g || g.is_system_group || g.deactivated || out.includes(id)) continue;
    await addGroupMembers(tx, id, [user.id]);
    out.push(id);
  }
  return out;
}

async function sendGroupEvents(svc: Services, groupIds: number[], user: UserRow): Promise<void> {
  if (groupIds.length === 0) return;
  const recipients = await cachedActiveUserIds(svc);
  for (const id of groupIds) svc.bus.send({ type: 'user_group', op: 'add_members', group_id: id, user_ids: [user.id] }, recipients);
}


async function notifyReferrer(svc: Services, inv: InvitationRow, user: UserRow, realmName: string): Promise<void> {
  if (!inv.notify_referrer_on_join) return;
  const referrer = await userById(svc.store.db, svc.realmId, inv.referred_by);
  if (!referrer || !referrer.is_active) return;
  const bot = await notificationBot(svc);
  await sendMessage(svc, bot, {
    type: 'private',
    to: JSON.stringify([referrer.id]),
    topic: undefined,
    content: `${silentMention(user)} accepted your invitation to join ${realmName}!`,
    clientName: 'Internal',
  });
}

/** Zulip's notify_new_user: "@_**Name|id** joined this organization." in topic "signups". */
async function announceSignup(svc: Services, user: UserRow): Promise<void> {
  const realm = await realmById(svc.store.db, svc.realmId);
  const target = Number(realmSettings(realm.settings_json).signup_announcements_stream_id);
  if (!(target > 0)) return;
  const bot = await notificationBot(svc);
  await sendMessage(svc, bot, {
    type: 'stream',
    to: String(target),
    topic: 'signups',
    content: `${silentMention(user)} joined this organization.`,
    clientName: 'Internal',
  });
}
