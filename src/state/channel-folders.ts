/** `channel_folders` in POST /register (every folder, archived ones included, in order) and the folder limits of the `realm` section. */
import { feature } from './registry.ts';
import { MAX_FOLDER_DESCRIPTION_LENGTH, MAX_FOLDER_NAME_LENGTH, registerChannelFolders } from '../actions/channel-folders.ts';

export default feature({
  state: [
    {
      types: ['channel_folders', 'realm'],
      async fetch(svc, _opts, wants) {
        const out: Record<string, unknown> = {};
        if (wants('channel_folders')) out.channel_folders = await registerChannelFolders(svc.store.db, svc.realmId);
        if (wants('realm')) Object.assign(out, { max_channel_folder_name_length: MAX_FOLDER_NAME_LENGTH, max_channel_folder_description_length: MAX_FOLDER_DESCRIPTION_LENGTH });
        return out;
      },
    },
  ],
});
