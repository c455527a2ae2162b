/**
 * Full members (role:fullmembers): members whose account is at least the
 * organization's waiting_period_threshold days old. Membership follows the
 * clock (src/actions/group-settings.ts computes it when asked); this module
 * announces the changes as Zulip does, with `user_group` add_members /
 * remove_members events for the role:fullmembers system group (every member
 * stays a direct member of role:members):
 *
 * - as time passes, a periodic job announces the members who passed the
 *   waiting period since its previous pass (Zulip's promote_new_full_members);
 * - a new waiting period announces at once who became or stopped being a
 *   full member (called by PATCH /realm, in its transaction).
 *
 * The job's progress is kept in `full_member_promotions`, so a pass announces
 * each promotion once even after a restart; one process at a time runs it (a
 * cluster-wide lock; a pass another process is running is skipped).
 */
import { cachedActiveUserIds, cachedGroups, cachedUsers, refreshingFirst } from './cache.ts';
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import { transaction } from '../store/db.ts';
import { realmById } from '../store/realm.ts';
import { ROLE } from '../store/users.ts';
import { fullMembersCheckedUntil, setFullMembersCheckedUntil } from '../store/full-members.ts';
import { withClusterLock } from '../store/locks.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { startPeriodicJob } from '../lib/periodic.ts';
import { fullMemberCutoff } from './group-settings.ts';
import type { ZulipEvent } from '../events/types.ts';

const PROMOTION_LOCK = 'full-member-promotion';

/** Active members (role member) who joined in (after, upTo], from the kept users as `tx` sees them. */
async function membersJoinedBetween(svc: Services, tx: Tx, after: number, upTo: number): Promise<number[]> {
  return (await cachedUsers(svc, tx)).list.filter((u) => u.is_active && u.role === ROLE.MEMBER && u.date_joined > after && u.date_joined <= upTo).map((u) => u.id);
}

/**
 * The events of a waiting-period change from `oldDays` to `newDays` at
 * `now`, inside the settings transaction; the promotion job continues from
 * `now`.
 */
export async function waitingPeriodChanges(svc: Services, tx: Tx, oldDays: number, newDays: number, now = Date.now() / 1000): Promise<ZulipEvent[]> {
  const at = Math.floor(now);
  const oldCut = fullMemberCutoff(oldDays, at);
  const newCut = fullMemberCutoff(newDays, at);
  await setFullMembersCheckedUntil(tx, svc.realmId, at);
  const changed = await membersJoinedBetween(svc, tx, Math.min(oldCut, newCut), Math.max(oldCut, newCut));
  if (!changed.length) return [];
  const full = (await cachedGroups(svc, tx)).systemGroupId('role:fullmembers');
  return [{ type: 'user_group', op: newCut > oldCut ? 'add_members' : 'remove_members', group_id: full, user_ids: changed }];
}

/**
 * One pass of the promotion job as of `now` (UNIX seconds): announces the
 * members who passed the waiting period since the previous pass. The first
 * pass only records the time. Returns the promoted user IDs.
 */
export async function promoteNewFullMembers(svc: Services, now = Date.now() / 1000, opts = { wait: true }): Promise<number[]> {
  let promoted: number[] = [];
  await withClusterLock(svc.store, PROMOTION_LOCK, opts, async () => {
    const event = await transaction(svc.store, async (tx) => {
      const days = Number(realmSettings((await realmById(tx, svc.realmId)).settings_json).waiting_period_threshold) || 0;
      const last = await fullMembersCheckedUntil(tx, svc.realmId);
      const until = Math.floor(now);
      if (last !== null && last >= until) return null;
      await setFullMembersCheckedUntil(tx, svc.realmId, until);
      if (last === null || days === 0) return null;
      promoted = await membersJoinedBetween(svc, tx, fullMemberCutoff(days, last), fullMemberCutoff(days, until));
      if (!promoted.length) return null;
      const full = (await cachedGroups(svc, tx)).systemGroupId('role:fullmembers');
      return { type: 'user_group', op: 'add_members', group_id: full, user_ids: promoted } satisfies ZulipEvent;
    });
    if (event) svc.bus.send(event, await cachedActiveUserIds(svc));
  });
  return promoted;
}

/** The promotion timer: a pass every `intervalMs` (hourly by default) and one at start; never keeps the process alive. */
export function startFullMemberJob(svc: Services, intervalMs = 3600_000): { stop(): Promise<void> } {
  return startPeriodicJob(svc.log, 'full member promotion pass', intervalMs, refreshingFirst(svc, () => promoteNewFullMembers(svc, Date.now() / 1000, { wait: false })));
}
