/** Channel folders: POST/GET/PATCH /channel_folders, PATCH /channel_folders/{channel_folder_id}. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import {
  createChannelFolder,
  editChannelFolder,
  listChannelFolders,
  MAX_FOLDER_DESCRIPTION_LENGTH,
  MAX_FOLDER_NAME_LENGTH,
  reorderChannelFolders,
} from '../../actions/channel-folders.ts';

export default [
  route({
    method: 'POST',
    path: '/channel_folders/create',
    auth: 'user',
    summary: 'Create a channel folder',
    params: { name: p.str({ maxLength: MAX_FOLDER_NAME_LENGTH }), description: p.str({ maxLength: MAX_FOLDER_DESCRIPTION_LENGTH }) },
    handler: (ctx, a) => createChannelFolder(ctx.svc, ctx.user, a.name, a.description),
  }),
  route({
    method: 'GET',
    path: '/channel_folders',
    auth: 'user',
    summary: 'Get channel folders',
    params: { include_archived: p.bool().default(false) },
    handler: (ctx, a) => listChannelFolders(ctx.svc, a.include_archived),
  }),
  route({
    method: 'PATCH',
    path: '/channel_folders',
    auth: 'user',
    summary: 'Reorder channel folders',
    params: { order: p.intList() },
    handler: async (ctx, a) => {
      await reorderChannelFolders(ctx.svc, ctx.user, a.order);
    },
  }),
  route({
    method: 'PATCH',
    path: '/channel_folders/:channel_folder_id(^\\d+$)',
    auth: 'user',
    summary: 'Update a channel folder',
    pathParams: { channel_folder_id: p.pathInt() },
    params: {
      name: p.str({ maxLength: MAX_FOLDER_NAME_LENGTH }).optional(),
      description: p.str({ maxLength: MAX_FOLDER_DESCRIPTION_LENGTH }).optional(),
      is_archived: p.bool().optional(),
    },
    handler: async (ctx, a) => {
      await editChannelFolder(ctx.svc, ctx.user, a.channel_folder_id, { name: a.name, description: a.description, isArchived: a.is_archived });
    },
  }),
];
