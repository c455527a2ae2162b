/** Channels and subscriptions. */
import { route } from '../route.ts';
import { deleteTopic } from '../../actions/delete-topic.ts';
import { p, v, type Param } from '../params.ts';
import { ApiError } from '../../lib/errors.ts';
import { groupSettingUpdate, groupSettingValue, type GroupSettingValue } from '../../actions/group-settings.ts';
import { STREAM_GROUP_SETTINGS, type StreamGroupSetting } from '../../actions/access.ts';
import { getStream, getStreamId, getStreams, TOPICS_POLICIES } from '../../actions/streams.ts';
import { createChannel } from '../../actions/streams-create.ts';
import { updateChannel } from '../../actions/streams-update.ts';
import { archiveChannel } from '../../actions/streams-archive.ts';
import { setDefaultStream } from '../../actions/streams-default.ts';
import {
  getSubscribers,
  getSubscriptionStatus,
  getUserChannels,
  listSubscriptions,
  subscribe,
  unsubscribe,
  updateSubscriptionProperties,
  updateSubscriptions,
} from '../../actions/subscriptions.ts';

/** Channels to subscribe to, by name (with a description and color for new or own ones). */
const channelSpecs = v.list(v.object({ name: v.str(), description: v.str(), color: v.str() }, { optional: ['description', 'color'] }));

/** message_retention_days: JSON (a number or a string) or the raw special words. */
const retentionParam = (): Param<string | number | undefined> =>
  p
    .custom<string | number>('string|integer', (raw, name) => {
      let value: unknown = raw;
      try {
        value = JSON.parse(raw);
      } catch {
        // Raw text such as unlimited.
      }
      if (typeof value !== 'string' && typeof value !== 'number') throw new ApiError(`${name} is not a string or an integer`);
      return value;
    })
    .optional();

const includeSubscribersParam = p.includeSubscribers().default(false);

function groupSettingParams<T>(make: () => Param<T>): Record<StreamGroupSetting, Param<T | undefined>> {
  const out = {} as Record<StreamGroupSetting, Param<T | undefined>>;
  for (const name of STREAM_GROUP_SETTINGS) out[name] = make().optional();
  return out;
}

function pickGroupSettings<T>(a: Record<string, unknown>): Partial<Record<StreamGroupSetting, T>> {
  const out: Partial<Record<StreamGroupSetting, T>> = {};
  for (const name of STREAM_GROUP_SETTINGS) if (a[name] !== undefined) out[name] = a[name] as T;
  return out;
}

const principalsParam = p.json(v.union<Array<string | number>>(v.list(v.str()), v.list(v.int())), 'string[]|integer[]').default([]);

export default [
  route({
    method: 'POST',
    path: '/channels/create',
    auth: 'user',
    summary: 'Create a channel',
    params: {
      name: p.str(),
      description: p.str().default(''),
      subscribers: p.intList(),
      announce: p.bool().default(false),
      invite_only: p.bool().default(false),
      is_web_public: p.bool().default(false),
      is_default_stream: p.bool().default(false),
      folder_id: p.json(v.nullable(v.int()), 'integer').optional(),
      topics_policy: p.enumStr(TOPICS_POLICIES).default('inherit'),
      history_public_to_subscribers: p.json(v.nullable(v.bool()), 'boolean').optional(),
      message_retention_days: retentionParam(),
      ...groupSettingParams(() => p.json(groupSettingValue, 'integer|object')),
    },
    handler: (ctx, a) => {
      return createChannel(ctx.svc, ctx.user, {
        name: a.name,
        description: a.description,
        subscribers: a.subscribers,
        announce: a.announce,
        inviteOnly: a.invite_only,
        isWebPublic: a.is_web_public,
        isDefault: a.is_default_stream,
        folderId: a.folder_id ?? null,
        topicsPolicy: a.topics_policy,
        historyPublicToSubscribers: a.history_public_to_subscribers,
        messageRetentionDays: a.message_retention_days,
        groupSettings: pickGroupSettings<GroupSettingValue>(a),
      });
    },
  }),
  route({
    method: 'GET',
    path: '/streams',
    auth: 'user',
    summary: 'Get all channels',
    params: {
      include_public: p.bool().default(true),
      include_web_public: p.bool().default(false),
      include_subscribed: p.bool().default(true),
      exclude_archived: p.bool().default(true),
      include_all: p.bool().default(false),
      include_all_active: p.bool().default(false),
      include_default: p.bool().default(false),
      include_owner_subscribed: p.bool().default(false),
      include_can_access_content: p.bool().default(false),
    },
    handler: async (ctx, a) => ({ streams: await getStreams(ctx.svc, ctx.user, a) }),
  }),
  route({
    method: 'GET',
    path: '/streams/:stream_id(^\\d+$)',
    auth: 'user',
    summary: 'Get a channel by ID',
    pathParams: { stream_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => ({ stream: await getStream(ctx.svc, ctx.user, a.stream_id) }),
  }),
  route({
    method: 'PATCH',
    path: '/streams/:stream_id(^\\d+$)',
    auth: 'user',
    summary: 'Update a channel',
    pathParams: { stream_id: p.pathInt() },
    params: {
      description: p.str().optional(),
      new_name: p.str().optional(),
      is_private: p.bool().optional(),
      is_web_public: p.bool().optional(),
      history_public_to_subscribers: p.bool().optional(),
      is_default_stream: p.bool().optional(),
      message_retention_days: retentionParam(),
      is_archived: p.bool().optional(),
      folder_id: p.json(v.nullable(v.int()), 'integer|null').optional(),
      topics_policy: p.enumStr(TOPICS_POLICIES).optional(),
      ...groupSettingParams(() => p.json(groupSettingUpdate, 'object')),
    },
    handler: async (ctx, a) => {
      await updateChannel(ctx.svc, ctx.user, a.stream_id, {
        description: a.description,
        new_name: a.new_name,
        is_private: a.is_private,
        is_web_public: a.is_web_public,
        history_public_to_subscribers: a.history_public_to_subscribers,
        is_default_stream: a.is_default_stream,
        message_retention_days: a.message_retention_days,
        is_archived: a.is_archived,
        folder_id: a.folder_id,
        topics_policy: a.topics_policy,
        groupSettings: pickGroupSettings<{ new: GroupSettingValue; old?: GroupSettingValue }>(a),
      });
    },
  }),
  route({
    method: 'DELETE',
    path: '/streams/:stream_id(^\\d+$)',
    auth: 'user',
    summary: 'Archive a channel',
    pathParams: { stream_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await archiveChannel(ctx.svc, ctx.user, a.stream_id);
    },
  }),
  route({
    method: 'GET',
    path: '/get_stream_id',
    auth: 'user',
    summary: 'Get channel ID',
    params: { stream: p.str() },
    handler: async (ctx, a) => ({ stream_id: await getStreamId(ctx.svc, ctx.user, a.stream) }),
  }),
  route({
    method: 'GET',
    path: '/streams/:stream_id(^\\d+$)/members',
    auth: 'user',
    summary: 'Get the subscribers of a channel',
    pathParams: { stream_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => ({ subscribers: await getSubscribers(ctx.svc, ctx.user, a.stream_id) }),
  }),
  route({
    method: 'GET',
    path: '/users/:user_id(^\\d+$)/subscriptions/:stream_id(^\\d+$)',
    auth: 'user',
    summary: 'Get subscription status',
    pathParams: { user_id: p.pathInt(), stream_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => ({ is_subscribed: await getSubscriptionStatus(ctx.svc, ctx.user, a.user_id, a.stream_id) }),
  }),
  route({
    method: 'GET',
    path: '/users/:user_id(^\\d+$)/channels',
    auth: 'user',
    summary: "Get a user's subscribed channels (those whose metadata you may see)",
    pathParams: { user_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => ({ subscribed_channel_ids: await getUserChannels(ctx.svc, ctx.user, a.user_id) }),
  }),
  route({
    method: 'PATCH',
    path: '/users/me/subscriptions',
    auth: 'user',
    summary: 'Update subscriptions: subscribe to `add` and unsubscribe from `delete`',
    params: {
      add: p.json(channelSpecs, 'object[]').default([]),
      delete: p.json(v.list(v.str()), 'string[]').default([]),
    },
    handler: (ctx, a) => updateSubscriptions(ctx.svc, ctx.user, a.add, a.delete),
  }),
  route({
    method: 'GET',
    path: '/users/me/subscriptions',
    auth: 'user',
    summary: 'Get subscribed channels',
    params: { include_subscribers: includeSubscribersParam },
    handler: async (ctx, a) => ({ subscriptions: await listSubscriptions(ctx.svc, ctx.user, a.include_subscribers) }),
  }),
  route({
    method: 'POST',
    path: '/users/me/subscriptions',
    auth: 'user',
    summary: 'Subscribe to channels (creating missing ones)',
    params: {
      subscriptions: p.json(channelSpecs, 'object[]'),
      principals: principalsParam,
      authorization_errors_fatal: p.bool().default(true),
      announce: p.bool().default(false),
      send_new_subscription_messages: p.bool().default(true),
      invite_only: p.bool().default(false),
      is_web_public: p.bool().default(false),
      is_default_stream: p.bool().default(false),
      history_public_to_subscribers: p.json(v.nullable(v.bool()), 'boolean').default(null),
      message_retention_days: retentionParam(),
      topics_policy: p.enumStr(TOPICS_POLICIES).optional(),
      folder_id: p.json(v.nullable(v.int()), 'integer').optional(),
      ...groupSettingParams(() => p.json(groupSettingValue, 'integer|object')),
    },
    handler: (ctx, a) =>
      subscribe(ctx.svc, ctx.user, {
        subscriptions: a.subscriptions,
        principals: a.principals,
        authorizationErrorsFatal: a.authorization_errors_fatal,
        announce: a.announce,
        sendNewSubscriptionMessages: a.send_new_subscription_messages,
        inviteOnly: a.invite_only,
        isWebPublic: a.is_web_public,
        isDefault: a.is_default_stream,
        historyPublicToSubscribers: a.history_public_to_subscribers,
        messageRetentionDays: a.message_retention_days,
        topicsPolicy: a.topics_policy,
        folderId: a.folder_id ?? null,
        groupSettings: pickGroupSettings<GroupSettingValue>(a),
      }),
  }),
  route({
    method: 'DELETE',
    path: '/users/me/subscriptions',
    auth: 'user',
    summary: 'Unsubscribe from channels',
    params: { subscriptions: p.json(v.list(v.str()), 'string[]'), principals: principalsParam },
    handler: (ctx, a) => unsubscribe(ctx.svc, ctx.user, a.subscriptions, a.principals),
  }),
  route({
    method: 'PATCH',
    path: '/users/me/subscriptions/:stream_id(^\\d+$)',
    auth: 'user',
    summary: 'Update a subscription setting',
    pathParams: { stream_id: p.pathInt() },
    params: { property: p.str(), value: p.custom<unknown>('boolean|string', (raw) => {
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
    }) },
    handler: async (ctx, a) => {
      await updateSubscriptionProperties(ctx.svc, ctx.user, [{ stream_id: a.stream_id, property: a.property, value: a.value }]);
    },
  }),
  route({
    method: 'POST',
    path: '/users/me/subscriptions/properties',
    auth: 'user',
    summary: 'Update subscription settings',
    params: {
      subscription_data: p.json(v.list(v.object({ stream_id: v.int(), property: v.str(), value: v.union<unknown>(v.bool(), v.str()) })), 'object[]'),
    },
    handler: async (ctx, a) => {
      await updateSubscriptionProperties(ctx.svc, ctx.user, a.subscription_data);
    },
  }),
  route({
    method: 'POST',
    path: '/default_streams',
    auth: 'user',
    summary: 'Add a default channel',
    params: { stream_id: p.int() },
    handler: async (ctx, a) => {
      await setDefaultStream(ctx.svc, ctx.user, a.stream_id, true);
    },
  }),
  route({
    method: 'DELETE',
    path: '/default_streams',
    auth: 'user',
    summary: 'Remove a default channel',
    params: { stream_id: p.int() },
    handler: async (ctx, a) => {
      await setDefaultStream(ctx.svc, ctx.user, a.stream_id, false);
    },
  }),
  route({
    method: 'POST',
    path: '/streams/:stream_id(^\\d+$)/delete_topic',
    auth: 'user',
    summary: 'Delete a topic',
    pathParams: { stream_id: p.pathInt() },
    // Checked after the administrator check, as in Zulip.
    params: { topic_name: p.str().optional() },
    handler: (ctx, a) => deleteTopic(ctx.svc, ctx.user, a.stream_id, a.topic_name),
  }),
];
