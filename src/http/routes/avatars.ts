/** Avatars and the organization's images: POST/DELETE /users/me/avatar, /realm/icon, /realm/logo. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { deleteAvatar, uploadAvatar } from '../../actions/avatars.ts';
import { deleteRealmIcon, deleteRealmLogo, uploadRealmIcon, uploadRealmLogo } from '../../actions/realm-images.ts';

export default [
  route({
    method: 'POST',
    path: '/users/me/avatar',
    auth: 'user',
    summary: 'Set your avatar',
    params: {},
    handler: (ctx) => uploadAvatar(ctx.svc, ctx.user, ctx.req.files ?? []),
  }),
  route({
    method: 'DELETE',
    path: '/users/me/avatar',
    auth: 'user',
    summary: 'Delete your avatar',
    params: {},
    handler: (ctx) => deleteAvatar(ctx.svc, ctx.user),
  }),
  route({
    method: 'POST',
    path: '/realm/icon',
    auth: 'user',
    summary: "Upload the organization's icon",
    params: {},
    handler: (ctx) => uploadRealmIcon(ctx.svc, ctx.user, ctx.req.files ?? []),
  }),
  route({
    method: 'DELETE',
    path: '/realm/icon',
    auth: 'user',
    summary: "Delete the organization's icon",
    params: {},
    handler: (ctx) => deleteRealmIcon(ctx.svc, ctx.user),
  }),
  route({
    method: 'POST',
    path: '/realm/logo',
    auth: 'user',
    summary: "Upload the organization's logo",
    params: { night: p.bool() },
    handler: async (ctx, a) => {
      await uploadRealmLogo(ctx.svc, ctx.user, a.night, ctx.req.files ?? []);
    },
  }),
  route({
    method: 'DELETE',
    path: '/realm/logo',
    auth: 'user',
    summary: "Delete the organization's logo",
    params: { night: p.bool() },
    handler: async (ctx, a) => {
      await deleteRealmLogo(ctx.svc, ctx.user, a.night);
    },
  }),
];
