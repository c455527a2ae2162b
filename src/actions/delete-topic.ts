/**
 * POST /streams/{stream_id}/delete_topic (spec §4.18, §3.6): organization
 * administrators delete every message of a topic they can see. Messages go
 * in batches, newest first, each batch its own transaction through
 * deleteMessages (delete_message events and the channel's new
 * first_message_id). When the time budget runs out with messages left the
 * answer is complete: false, and the client repeats the request.
 */
import type { Services } from '../services.ts';
import { missingArgument, requireAdmin } from '../lib/errors.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { NO_TOPIC } from '../lib/topic.ts';
import { topicMessageIdsNewestFirst } from '../store/delete-topic.ts';
import { realmById } from '../store/realm.ts';
import { type UserRow } from '../store/users.ts';
import { accessStreamById, canReadFullHistory } from './access.ts';
import { isAdminRole } from './users-format.ts';
import { deleteMessages } from './message-delete.ts';

/** Batch size (Zulip's RETENTION_STREAM_MESSAGE_BATCH_SIZE) and time budget per request (Zulip: 50 s). */
export const deleteTopicLimits = { batchSize: 1000, timeBudgetMs: 50_000 };

export async function deleteTopic(svc: Services, user: UserRow, streamId: number, topicName: string | undefined): Promise<{ complete: boolean }> {
  if (!isAdminRole(user.role)) throw requireAdmin();
  if (topicName === undefined) throw missingArgument('topic_name');
  const db = svc.store.db;
  const access = await accessStreamById(svc, db, user, streamId);
  const emptyName = String(realmSettings((await realmById(db, svc.realmId)).settings_json).empty_topic_display_name);
  // The empty topic's names ("(no topic)", the display name) mean ""; otherwise the name as sent.
  const topic = topicName === NO_TOPIC || topicName === emptyName ? '' : topicName;
  // Without access to the full history, only the messages the user received.
  const onlyHeldBy = canReadFullHistory(access) ? undefined : user.id;
  const { batchSize, timeBudgetMs } = deleteTopicLimits;
  const deadline = Date.now() + timeBudgetMs;
  for (;;) {
    // Chosen inside each batch's transaction: messages moved out of the topic meanwhile stay.
    const deleted = await deleteMessages(svc, (tx) => topicMessageIdsNewestFirst(tx, svc.realmId, access.stream.id, topic, batchSize, onlyHeldBy));
    if (deleted < batchSize) return { complete: true };
    if (Date.now() >= deadline) return { complete: false };
  }
}
