/**
 * Zulip's realm_export_consent event: when a user changes
 * allow_private_data_export, the organization's human administrators learn
 * of it (GET /export/realm/consents lists the current state).
 */
import type { Services } from '../services.ts';
import { adminUserIds } from '../store/users.ts';

export async function notifyExportConsent(svc: Services, userId: number, consented: boolean): Promise<void> {
  svc.bus.send({ type: 'realm_export_consent', user_id: userId, consented }, await adminUserIds(svc.store.db, svc.realmId));
}
