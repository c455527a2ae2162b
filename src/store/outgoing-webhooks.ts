/**
 * Outgoing-webhook deliveries: all SQL about outgoing_webhook_jobs. A job is
 * claimed with one conditional UPDATE ... RETURNING (the claim expires, so a
 * job whose worker died is picked up again), and finished or rescheduled by
 * its claimant.
 */
import type { Selectable } from 'kysely';
import type { Db, Tx } from './db.ts';
import type { OutgoingWebhookJobsTable } from './schema.ts';

export type OutgoingWebhookJobRow = Selectable<OutgoingWebhookJobsTable>;

/** Active outgoing-webhook bots (bot_type 3) among these users. */
export async function outgoingWebhookBotIds(db: Tx, realmId: number, userIds: number[]): Promise<number[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('realm_id', '=', realmId)
    .where('id', 'in', userIds)
    .where('bot_type', '=', 3)
    .where('is_active', '=', 1)
    .execute();
  return rows.map((r) => r.id);
}

export async function insertOutgoingWebhookJobs(db: Tx, jobs: Array<{ bot_id: number; message_id: number; trigger: string }>, now: number): Promise<void> {
  if (jobs.length === 0) return;
  await db
    .insertInto('outgoing_webhook_jobs')
    .values(jobs.map((j) => ({ ...j, run_at: now, locked_until: null, done_at: null })))
    .execute();
}

/** Claims up to `limit` due jobs for `leaseMs`; each job is returned to exactly one claimant. */
export async function claimDueOutgoingWebhookJobs(db: Db, now: number, leaseMs: number, limit: number): Promise<OutgoingWebhookJobRow[]> {
  const candidates = await db
    .selectFrom('outgoing_webhook_jobs')
    .select('id')
    .where('done_at', 'is', null)
    .where('run_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .orderBy('id')
    .limit(limit)
    .execute();
  if (candidates.length === 0) return [];
  return db
    .updateTable('outgoing_webhook_jobs')
    .set({ locked_until: now + leaseMs })
    .where(
      'id',
      'in',
      candidates.map((c) => c.id),
    )
    .where('done_at', 'is', null)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .returningAll()
    .execute();
}

/**
 * Finishes the job only while the claim read as `lockedUntil` is still its
 * own (no other claimant took it after the lease ran out); false otherwise.
 */
export async function finishClaimedOutgoingWebhookJob(db: Tx, id: number, lockedUntil: number | null, now: number): Promise<boolean> {
  const r = await db
    .updateTable('outgoing_webhook_jobs')
    .set({ done_at: now, locked_until: null })
    .where('id', '=', id)
    .where('done_at', 'is', null)
    .where('locked_until', lockedUntil === null ? 'is' : '=', lockedUntil)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function finishOutgoingWebhookJob(db: Db, id: number, now: number): Promise<void> {
  await db.updateTable('outgoing_webhook_jobs').set({ done_at: now, locked_until: null }).where('id', '=', id).execute();
}

export async function retryOutgoingWebhookJob(db: Db, id: number, failedTries: number, runAt: number): Promise<void> {
  await db.updateTable('outgoing_webhook_jobs').set({ failed_tries: failedTries, run_at: runAt, locked_until: null }).where('id', '=', id).execute();
}
