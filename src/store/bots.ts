/** Bot services (outgoing webhook and embedded bots): all SQL about bot_services. */
import type { Selectable } from 'kysely';
import type { Tx } from './db.ts';
import type { BotServicesTable } from './schema.ts';

export type BotServiceRow = Selectable<BotServicesTable>;

export async function insertBotService(
  db: Tx,
  s: { user_id: number; name: string; base_url: string; interface: number; token: string },
): Promise<void> {
  await db.insertInto('bot_services').values(s).execute();
}

export async function servicesOfBots(db: Tx, botIds: number[]): Promise<BotServiceRow[]> {
  if (botIds.length === 0) return [];
  return db.selectFrom('bot_services').selectAll().where('user_id', 'in', botIds).orderBy('id').execute();
}

export async function updateBotService(db: Tx, botId: number, patch: { base_url: string; interface: number }): Promise<void> {
  await db.updateTable('bot_services').set(patch).where('user_id', '=', botId).execute();
}
