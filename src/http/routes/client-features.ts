/**
 * What the mobile and terminal apps call beyond messages and channels: saved
 * snippets, message reports, submessages (widgets), client device
 * registration and the legacy APNs/FCM token routes.
 */
import { route } from '../route.ts';
import { p, v } from '../params.ts';
import { createSavedSnippet, editSavedSnippet, listSavedSnippets, MAX_SNIPPET_TITLE_LENGTH, removeSavedSnippet } from '../../actions/saved-snippets.ts';
import { MAX_REPORT_DESCRIPTION_LENGTH, reportMessage, REPORT_TYPES } from '../../actions/message-report.ts';
import { addSubmessage } from '../../actions/submessages.ts';
import { addPushToken, registerClientDevice, removeClientDevice, removePushToken } from '../../actions/devices.ts';

/** A string trimmed before its length checks (pydantic's strip_whitespace). */
const trimmed = (opts: { minLength?: number; maxLength?: number }) => p.custom<string>('string', (raw, name) => v.str(opts)(raw.trim(), name));

export default [
  route({
    method: 'GET',
    path: '/saved_snippets',
    auth: 'user',
    summary: 'Get all saved snippets',
    params: {},
    handler: async (ctx) => ({ saved_snippets: await listSavedSnippets(ctx.svc, ctx.user) }),
  }),
  route({
    method: 'POST',
    path: '/saved_snippets',
    auth: 'user',
    summary: 'Create a saved snippet',
    params: {
      title: trimmed({ minLength: 1, maxLength: MAX_SNIPPET_TITLE_LENGTH }),
      content: trimmed({ minLength: 1, maxLength: 10000 }),
    },
    handler: (ctx, a) => createSavedSnippet(ctx.svc, ctx.user, a.title, a.content),
  }),
  route({
    method: 'PATCH',
    path: '/saved_snippets/:saved_snippet_id(^\\d+$)',
    auth: 'user',
    summary: 'Edit a saved snippet',
    pathParams: { saved_snippet_id: p.pathInt() },
    params: {
      title: trimmed({ minLength: 1, maxLength: MAX_SNIPPET_TITLE_LENGTH }).optional(),
      content: trimmed({ minLength: 1, maxLength: 10000 }).optional(),
    },
    handler: async (ctx, a) => {
      await editSavedSnippet(ctx.svc, ctx.user, a.saved_snippet_id, a.title, a.content);
    },
  }),
  route({
    method: 'DELETE',
    path: '/saved_snippets/:saved_snippet_id(^\\d+$)',
    auth: 'user',
    summary: 'Delete a saved snippet',
    pathParams: { saved_snippet_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await removeSavedSnippet(ctx.svc, ctx.user, a.saved_snippet_id);
    },
  }),
  route({
    method: 'POST',
    path: '/messages/:message_id(^\\d+$)/report',
    auth: 'user',
    summary: 'Report a message',
    pathParams: { message_id: p.pathInt() },
    params: {
      report_type: p.enumStr(REPORT_TYPES),
      description: p.str({ maxLength: MAX_REPORT_DESCRIPTION_LENGTH }).default(''),
    },
    handler: async (ctx, a) => {
      await reportMessage(ctx.svc, ctx.user, a.message_id, a.report_type, a.description);
    },
  }),
  route({
    method: 'POST',
    path: '/submessage',
    auth: 'user',
    summary: 'Add a submessage to a message (widgets)',
    params: { message_id: p.int(), msg_type: p.str(), content: p.str() },
    handler: async (ctx, a) => {
      await addSubmessage(ctx.svc, ctx.user, a.message_id, a.msg_type, a.content);
    },
  }),
  route({
    method: 'POST',
    path: '/register_client_device',
    auth: 'user',
    summary: 'Register a logged-in device',
    params: {},
    handler: (ctx) => registerClientDevice(ctx.svc, ctx.user),
  }),
  route({
    method: 'POST',
    path: '/remove_client_device',
    auth: 'user',
    summary: 'Remove a registered device',
    params: { device_id: p.int() },
    handler: async (ctx, a) => {
      await removeClientDevice(ctx.svc, ctx.user, a.device_id);
    },
  }),
  route({
    method: 'POST',
    path: '/users/me/apns_device_token',
    auth: 'user',
    summary: 'Add an APNs device token (stored; no push service is configured)',
    params: { token: p.str(), appid: p.str().optional() },
    handler: async (ctx, a) => {
      await addPushToken(ctx.svc, ctx.user, 'apns', a.token, a.appid);
    },
  }),
  route({
    method: 'DELETE',
    path: '/users/me/apns_device_token',
    auth: 'user',
    summary: 'Remove an APNs device token',
    params: { token: p.str() },
    handler: async (ctx, a) => {
      await removePushToken(ctx.svc, ctx.user, 'apns', a.token);
    },
  }),
  route({
    method: 'POST',
    path: '/users/me/android_gcm_reg_id',
    auth: 'user',
    summary: 'Add an FCM registration token (stored; no push service is configured)',
    params: { token: p.str() },
    handler: async (ctx, a) => {
      await addPushToken(ctx.svc, ctx.user, 'fcm', a.token, undefined);
    },
  }),
  route({
    method: 'DELETE',
    path: '/users/me/android_gcm_reg_id',
    auth: 'user',
    summary: 'Remove an FCM registration token',
    params: { token: p.str() },
    handler: async (ctx, a) => {
      await removePushToken(ctx.svc, ctx.user, 'fcm', a.token);
    },
  }),
];
