/** Browser login sessions: all SQL about the sessions table (rows are keyed by a hash of the session id). */
import type { Selectable } from 'kysely';
import type { Db, Tx } from './db.ts';
import { prepared } from './prepared.ts';
import type { SessionsTable, UsersTable } from './schema.ts';

export type SessionRow = Selectable<SessionsTable>;

export async function insertSession(db: Tx, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** The session with this id hash, its user and whether the organization is deactivated (one query). */
const withUser = prepared((db) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .innerJoin('realm', 'realm.id', 'users.realm_id')
    .selectAll('users')
    .select([
      'sessions.csrf_token as session_csrf_token',
      'sessions.expires as session_expires',
      'realm.deactivated as realm_deactivated',
    ])
    .where('sessions.id_hash', '=', ''),
);

export type SessionWithUser = Selectable<UsersTable> & {
  session_csrf_token: string;
  session_expires: number;
  realm_deactivated: number;
};

export async function sessionWithUser(db: Db, idHash: string): Promise<SessionWithUser | undefined> {
  return (await withUser(db, idHash))[0];
}

export async function deleteSession(db: Tx, idHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

/** Ends every session of a user, except the one with `exceptHash` when given. */
export async function deleteUserSessions(db: Tx, userId: number, exceptHash?: string): Promise<number> {
  let q = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (exceptHash !== undefined) q = q.where('id_hash', '!=', exceptHash);
  const res = await q.executeTakeFirst();
  return Number(res.numDeletedRows);
}

export async function deleteExpiredSessions(db: Tx, now: number): Promise<void> {
  await db.deleteFrom('sessions').where('expires', '<=', now).execute();
}
