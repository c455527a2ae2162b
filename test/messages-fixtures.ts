/**
 * Test setup for message tests: channels and subscriptions written straight
 * to the store (independent of the channel endpoints), and small helpers.
 */
import type { TestServer } from './helpers.ts';
import { systemGroupIds } from '../src/store/groups.ts';

export async function makeChannel(
  t: TestServer,
  opts: { name: string; inviteOnly?: boolean; historyPublic?: boolean; webPublic?: boolean; subscribers?: number[]; topicsPolicy?: string; sendGroup?: string },
): Promise<number> {
  const svc = t.server.svc;
  const db = svc.store.db;
  const g = await systemGroupIds(db, svc.realmId);
  const nobody = g.get('role:nobody')!;
  const settings = {
    can_send_message_group: g.get(opts.sendGroup ?? 'role:everyone')!,
    can_administer_channel_group: nobody,
    can_add_subscribers_group: nobody,
    can_subscribe_group: nobody,
    can_remove_subscribers_group: g.get('role:administrators')!,
    can_create_topic_group: g.get('role:everyone')!,
    can_delete_any_message_group: nobody,
    can_delete_own_message_group: g.get('role:everyone')!,
    can_move_messages_out_of_channel_group: nobody,
    can_move_messages_within_channel_group: nobody,
    can_resolve_topics_group: nobody,
  };
  // A new organization already has "general" (and "core team"): reuse the
  // row with the requested settings and exactly the requested subscribers.
  const existing = await db.selectFrom('streams').select('id').where('realm_id', '=', svc.realmId).where('name', '=', opts.name).executeTakeFirst();
  if (existing) {
    await db
      .updateTable('streams')
      .set({
        invite_only: opts.inviteOnly ? 1 : 0,
        is_web_public: opts.webPublic ? 1 : 0,
        history_public_to_subscribers: opts.historyPublic === false ? 0 : 1,
        topics_policy: opts.topicsPolicy ?? 'inherit',
        group_settings_json: JSON.stringify(settings),
      })
      .where('id', '=', existing.id)
      .execute();
    await db.deleteFrom('subscriptions').where('stream_id', '=', existing.id).execute();
    if (opts.subscribers?.length) await subscribe(t, existing.id, opts.subscribers);
    return existing.id;
  }
  const row = await db
    .insertInto('streams')
    .values({
      realm_id: svc.realmId,
      name: opts.name,
      invite_only: opts.inviteOnly ? 1 : 0,
      is_web_public: opts.webPublic ? 1 : 0,
      history_public_to_subscribers: opts.historyPublic === false ? 0 : 1,
      message_retention_days: null,
      date_created: Math.floor(Date.now() / 1000),
      creator_id: null,
      first_message_id: null,
      folder_id: null,
      topics_policy: opts.topicsPolicy ?? 'inherit',
      group_settings_json: JSON.stringify(settings),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (opts.subscribers?.length) await subscribe(t, row.id, opts.subscribers);
  return row.id;
}

export async function subscribe(t: TestServer, streamId: number, userIds: number[]): Promise<void> {
  const db = t.server.svc.store.db;
  for (const uid of userIds) {
    await db.insertInto('subscriptions').values({ user_id: uid, stream_id: streamId, color: '#76ce90', desktop_notifications: null, audible_notifications: null, push_notifications: null, email_notifications: null, wildcard_mentions_notify: null }).execute();
  }
}

export async function setRealmSetting(t: TestServer, key: string, value: unknown): Promise<void> {
  const svc = t.server.svc;
  const db = svc.store.db;
  const r = await db.selectFrom('realm').select('settings_json').where('id', '=', svc.realmId).executeTakeFirstOrThrow();
  const s = JSON.parse(r.settings_json || '{}') as Record<string, unknown>;
  s[key] = value;
  await db.updateTable('realm').set({ settings_json: JSON.stringify(s) }).where('id', '=', svc.realmId).execute();
}
