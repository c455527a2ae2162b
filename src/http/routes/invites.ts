/** Email invitations: send, list, revoke, resend. */
import { route } from '../route.ts';
import { p, v } from '../params.ts';
import {
  INVITE_AS_VALUES,
  MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH,
  createMultiuseInvite,
  inviteUsers,
  listInvites,
  resendInvite,
  revokeInvite,
  revokeMultiuseInviteById,
} from '../../actions/invites.ts';

export default [
  route({
    method: 'POST',
    path: '/invites',
    auth: 'user',
    summary: 'Send invitations',
    params: {
      // Optional here so that a missing value gets Zulip's "You must specify..." message.
      invitee_emails: p.str().optional(),
      invite_expires_in_minutes: p.json(v.nullable(v.int()), 'integer|null').optional(),
      invite_as: p.json(v.literal(INVITE_AS_VALUES), 'integer').default(400),
      stream_ids: p.intList(),
      group_ids: p.intList().default([]),
      include_realm_default_subscriptions: p.bool().default(false),
      notify_referrer_on_join: p.bool().default(true),
      welcome_message_custom_text: p.str({ maxLength: MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH }).optional(),
    },
    handler: (ctx, a) =>
      inviteUsers(ctx.svc, ctx.user, {
        inviteeEmails: a.invitee_emails,
        expiresInMinutes: a.invite_expires_in_minutes,
        inviteAs: a.invite_as,
        streamIds: a.stream_ids,
        groupIds: a.group_ids,
        includeRealmDefaultSubscriptions: a.include_realm_default_subscriptions,
        notifyReferrerOnJoin: a.notify_referrer_on_join,
        welcomeMessageCustomText: a.welcome_message_custom_text,
      }),
  }),
  route({
    method: 'GET',
    path: '/invites',
    auth: 'user',
    summary: 'Get all invitations',
    params: {},
    handler: (ctx) => listInvites(ctx.svc, ctx.user),
  }),
  route({
    method: 'DELETE',
    path: '/invites/:invite_id(^\\d+$)',
    auth: 'user',
    summary: 'Revoke an email invitation',
    pathParams: { invite_id: p.pathInt() },
    params: {},
    handler: (ctx, a) => revokeInvite(ctx.svc, ctx.user, a.invite_id),
  }),
  route({
    method: 'POST',
    path: '/invites/:invite_id(^\\d+$)/resend',
    auth: 'user',
    summary: 'Resend an email invitation',
    pathParams: { invite_id: p.pathInt() },
    params: {},
    handler: (ctx, a) => resendInvite(ctx.svc, ctx.user, a.invite_id),
  }),
  route({
    method: 'POST',
    path: '/invites/multiuse',
    auth: 'user',
    summary: 'Create a reusable invitation link',
    params: {
      invite_expires_in_minutes: p.json(v.nullable(v.int()), 'integer|null').optional(),
      invite_as: p.json(v.literal(INVITE_AS_VALUES), 'integer').default(400),
      stream_ids: p.intList().default([]),
      group_ids: p.intList().default([]),
      include_realm_default_subscriptions: p.bool().default(false),
      welcome_message_custom_text: p.str({ maxLength: MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH }).optional(),
    },
    handler: (ctx, a) =>
      createMultiuseInvite(ctx.svc, ctx.user, {
        expiresInMinutes: a.invite_expires_in_minutes,
        inviteAs: a.invite_as,
        streamIds: a.stream_ids,
        groupIds: a.group_ids,
        includeRealmDefaultSubscriptions: a.include_realm_default_subscriptions,
        welcomeMessageCustomText: a.welcome_message_custom_text,
      }),
  }),
  route({
    method: 'DELETE',
    path: '/invites/multiuse/:invite_id(^\\d+$)',
    auth: 'user',
    summary: 'Revoke a reusable invitation link',
    pathParams: { invite_id: p.pathInt() },
    params: {},
    handler: (ctx, a) => revokeMultiuseInviteById(ctx.svc, ctx.user, a.invite_id),
  }),
];
