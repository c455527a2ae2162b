/**
 * Outgoing-webhook bots (bot_type 3): what a new message triggers, as Zulip
 * decides it (zerver/lib/outgoing_webhook.py). A channel message mentioning
 * the bot (trigger "mention") or a direct message to it (trigger
 * "direct_message"), not sent by a bot, queues a job in the sending
 * transaction (outgoing_webhook_jobs), so it survives a restart; the sender
 * never waits for the bot's server. The jobs are run by
 * outgoing-webhook-delivery.ts, which wakes when a send queued some.
 */
import type { Services } from '../services.ts';
import type { Tx } from '../store/db.ts';
import type { Periodic } from '../lib/periodic.ts';
import type { UserRow } from '../store/users.ts';
import { insertOutgoingWebhookJobs, outgoingWebhookBotIds } from '../store/outgoing-webhooks.ts';

/**
 * In the sending transaction: the jobs a new message causes. `mentioned` are
 * the users it mentions; `recipients` everyone who receives it.
 */
export async function queueOutgoingWebhooks(
  svc: Services,
  tx: Tx,
  m: { id: number; sender: UserRow; isStream: boolean; mentioned: Set<number>; recipients: number[] },
): Promise<boolean> {
  // Messages from bots never trigger bots (no loops).
  if (m.sender.is_bot) return false;
  const candidates = m.isStream ? [...m.mentioned] : m.recipients.filter((id) => id !== m.sender.id);
  const bots = await outgoingWebhookBotIds(tx, svc.realmId, candidates);
  const trigger = m.isStream ? 'mention' : 'direct_message';
  await insertOutgoingWebhookJobs(tx, bots.map((bot_id) => ({ bot_id, message_id: m.id, trigger })), Date.now());
  return bots.length > 0;
}

/** Each server's running delivery pass (set by startOutgoingWebhookDelivery). */
const deliveries = new WeakMap<Services, Periodic>();

export function setOutgoingWebhookDelivery(svc: Services, periodic: Periodic | null): void {
  if (periodic) deliveries.set(svc, periodic);
  else deliveries.delete(svc);
}

/** After a commit that queued jobs: deliver now rather than at the next tick. */
export function wakeOutgoingWebhookDelivery(svc: Services): void {
  deliveries.get(svc)?.wake();
}
