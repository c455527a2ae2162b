/** What a first start prints about the organization it created (the server's start, or an admin command on an empty database). */
import type { Bootstrap } from '../actions/realm.ts';

export function createdLines(dataDir: string, created: NonNullable<Bootstrap['created']>): string[] {
  return [
    `Created the organization and its owner: ${created.owner.delivery_email}`,
    ...(created.generatedPassword ? [`Owner password (shown once): ${created.password}`] : []),
    `Owner API key written to ${dataDir}/zuliprc`,
  ];
}
