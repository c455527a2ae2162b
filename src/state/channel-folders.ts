/** `channel_folders` in POST /register (every folder, archived ones included, in order) and the folder limits of the `realm` section. */
import { feature } from './registry.ts';
import { MAX_FOLDER_DESCRIPTION_LENGTH, MAX_FOLDER_NAME_LENGTH, registerChannelFolders } from '../actions/channel-folders.ts';
import { cachedStreams } from '../actions/cache.ts';
import { readableBySpectators } from '../actions/access.ts';

export default feature({
  state: [
    {
      types: ['channel_folders', 'realm'],
      async fetch(svc, opts, wants) {
        const out: Record<string, unknown> = {};
        if (wants('channel_folders')) {
          const folders = await registerChannelFolders(svc.store.db, svc.realmId);
          if (opts.spectator) {
            // A spectator sees the folders of web-public channels only (Zulip's get_channel_folders_for_spectators).
            const used = new Set((await cachedStreams(svc)).list.filter(readableBySpectators).map((s) => s.folder_id));
            out.channel_folders = folders.filter((f) => used.has(f.id as number));
          } else out.channel_folders = folders;
        }
        if (wants('realm')) Object.assign(out, { max_channel_folder_name_length: MAX_FOLDER_NAME_LENGTH, max_channel_folder_description_length: MAX_FOLDER_DESCRIPTION_LENGTH });
        return out;
      },
    },
  ],
});
