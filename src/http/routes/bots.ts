/** Bots: create, list own, edit, regenerate API key, deactivate (creating and editing take an avatar as an uploaded file). */
import { route } from '../route.ts';
import { p, v } from '../params.ts';
import { ApiError } from '../../lib/errors.ts';
import { createBot, deactivateBot, listOwnBots, patchBot, getBotApiKey, regenerateBotApiKey } from '../../actions/bots.ts';
import { ROLES } from '../../actions/users-admin.ts';

/** A JSON-encoded URL string (Zulip's check_url). */
function url(): (x: unknown, name: string) => string {
  return (x, name) => {
    const s = v.str()(x, name);
    let ok = false;
    try {
      const u = new URL(s);
      ok = /^(https?|ftps?):$/.test(u.protocol) && u.hostname !== '';
    } catch {
      ok = false;
    }
    if (!ok) throw new ApiError(`${name} is not a URL`);
    return s;
  };
}

export default [
  route({
    method: 'GET',
    path: '/bots',
    auth: 'user',
    summary: 'Get own bots',
    params: {},
    handler: (ctx) => listOwnBots(ctx.svc, ctx.user),
  }),
  route({
    method: 'POST',
    path: '/bots',
    auth: 'user',
    summary: 'Create a bot (an image uploaded with it becomes its avatar)',
    params: {
      full_name: p.str(),
      short_name: p.str(),
      bot_type: p.int().default(1),
      payload_url: p.json(url(), 'url').default(''),
      service_name: p.str().optional(),
      config_data: p.json(v.dict(v.str()), 'object').default({}),
      interface_type: p.int().default(1),
      default_sending_stream: p.str().optional(),
      default_events_register_stream: p.str().optional(),
      default_all_public_streams: p.bool().optional(),
    },
    handler: (ctx, a) =>
      createBot(ctx.svc, ctx.user, {
        fullName: a.full_name,
        shortName: a.short_name,
        botType: a.bot_type,
        payloadUrl: a.payload_url,
        serviceName: a.service_name,
        interfaceType: a.interface_type,
        defaultSendingStream: a.default_sending_stream,
        defaultEventsRegisterStream: a.default_events_register_stream,
        defaultAllPublicStreams: a.default_all_public_streams,
        files: ctx.req.files,
      }),
  }),
  route({
    method: 'PATCH',
    path: '/bots/:bot_id(^\\d+$)',
    auth: 'user',
    summary: 'Update a bot (an image uploaded with it becomes its avatar)',
    pathParams: { bot_id: p.pathInt() },
    params: {
      full_name: p.str().optional(),
      short_name: p.str().optional(),
      role: p.json(v.int(), 'integer').optional(),
      bot_owner_id: p.int().optional(),
      config_data: p.json(v.dict(v.str()), 'object').optional(),
      service_payload_url: p.json(url(), 'url').optional(),
      service_interface: p.int().default(1),
      default_sending_stream: p.str().optional(),
      default_events_register_stream: p.str().optional(),
      default_all_public_streams: p.bool().optional(),
    },
    handler: (ctx, a) => {
      if (a.role !== undefined && !ROLES.includes(a.role)) throw new ApiError('Invalid role');
      return patchBot(ctx.svc, ctx.user, a.bot_id, {
        fullName: a.full_name,
        shortName: a.short_name,
        role: a.role,
        botOwnerId: a.bot_owner_id,
        configData: a.config_data,
        servicePayloadUrl: a.service_payload_url,
        serviceInterface: a.service_interface,
        defaultSendingStream: a.default_sending_stream,
        defaultEventsRegisterStream: a.default_events_register_stream,
        defaultAllPublicStreams: a.default_all_public_streams,
        files: ctx.req.files,
      });
    },
  }),
  route({
    method: 'DELETE',
    path: '/bots/:bot_id(^\\d+$)',
    auth: 'user',
    summary: 'Deactivate a bot',
    pathParams: { bot_id: p.pathInt() },
    params: {},
    handler: (ctx, a) => deactivateBot(ctx.svc, ctx.user, a.bot_id),
  }),
  route({
    method: 'GET',
    path: '/bots/:bot_id(^\\d+$)/api_key',
    auth: 'user',
    summary: "Get a bot's API key",
    pathParams: { bot_id: p.pathInt() },
    params: {},
    handler: (ctx, a) => getBotApiKey(ctx.svc, ctx.user, a.bot_id),
  }),
  route({
    method: 'POST',
    path: '/bots/:bot_id(^\\d+$)/api_key/regenerate',
    auth: 'user',
    summary: "Regenerate a bot's API key",
    pathParams: { bot_id: p.pathInt() },
    params: {},
    handler: (ctx, a) => regenerateBotApiKey(ctx.svc, ctx.user, a.bot_id),
  }),
];
