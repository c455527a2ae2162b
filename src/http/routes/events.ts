/** POST /register, GET /events, DELETE /events. */
import { route } from '../route.ts';
import { p, v } from '../params.ts';
import { deleteQueue, getEvents, registerQueue, registerSpectator } from '../../actions/events.ts';
import { parseNarrow } from '../../actions/narrow.ts';
import { PollCancel } from '../../events/queue.ts';

export default [
  route({
    method: 'POST',
    path: '/register',
    auth: 'web-optional',
    summary: 'Register an event queue and fetch initial state (under /json also for logged-out visitors, where the organization allows them: their state, without a queue)',
    params: {
      apply_markdown: p.bool().default(false),
      client_gravatar: p.bool().describe('Default true; false for a logged-out visitor, for whom true is an error.').optional(),
      slim_presence: p.bool().default(false),
      presence_history_limit_days: p.int({ min: 0 }).optional(),
      all_public_streams: p.bool().optional(),
      include_subscribers: p.includeSubscribers().default(false),
      client_capabilities: p.json(v.dict(v.bool()), 'object').default({}),
      event_types: p.json(v.nullable(v.list(v.str())), 'string[]').default(null),
      fetch_event_types: p.json(v.nullable(v.list(v.str())), 'string[]').default(null),
      narrow: p.json((x, name) => parseNarrow(x, name), 'narrow').default([]),
      queue_lifespan_secs: p.int({ min: 0 }).default(0),
      // Seconds the queue may go unpolled before it is collected, or "mobile" (12 hours).
      idle_queue_timeout: p.json(v.union<number | 'mobile'>(v.int({ min: 1 }), v.literal(['mobile'] as const)), 'integer|"mobile"').optional(),
    },
    handler: (ctx, a) => {
      if (!ctx.maybeUser) {
        return registerSpectator(ctx.svc, {
          applyMarkdown: a.apply_markdown,
          clientGravatar: a.client_gravatar ?? null,
          includeSubscribers: a.include_subscribers,
          clientCapabilities: a.client_capabilities,
          eventTypes: a.event_types,
          fetchEventTypes: a.fetch_event_types,
        });
      }
      return registerQueue(ctx.svc, {
        user: ctx.maybeUser,
        spectator: false,
        applyMarkdown: a.apply_markdown,
        clientGravatar: a.client_gravatar ?? true,
        slimPresence: a.slim_presence,
        presenceHistoryLimitDays: a.presence_history_limit_days ?? null,
        // Unset: the account's default (bots may have default_all_public_streams).
        allPublicStreams: a.all_public_streams ?? !!ctx.maybeUser.default_all_public_streams,
        includeSubscribers: a.include_subscribers,
        clientCapabilities: a.client_capabilities,
        eventTypes: a.event_types,
        fetchEventTypes: a.fetch_event_types,
        narrow: a.narrow,
        idleQueueTimeout: a.idle_queue_timeout ?? null,
        queueLifespanSecs: a.queue_lifespan_secs,
        clientName: ctx.clientName,
      });
    },
  }),
  route({
    method: 'GET',
    path: '/events',
    auth: 'user',
    noRateLimit: true,
    summary: 'Get events from an event queue (long-poll)',
    params: {
      queue_id: p.str(),
      last_event_id: p.int().optional(),
      dont_block: p.bool().default(false),
    },
    handler: async (ctx, a) => {
      // A client that disconnects mid-poll releases its wait. The request's
      // 'close' also comes after an answered poll; the queue then ignores it.
      const gone = new PollCancel();
      const raw = ctx.req.raw;
      if (raw.destroyed) gone.abort();
      else raw.on('close', () => gone.abort());
      const events = await getEvents(ctx.svc, ctx.user, a.queue_id, a.last_event_id, a.dont_block, gone);
      return { events, queue_id: a.queue_id };
    },
  }),
  route({
    method: 'DELETE',
    path: '/events',
    auth: 'user',
    summary: 'Delete an event queue',
    params: { queue_id: p.str() },
    handler: async (ctx, a) => {
      await deleteQueue(ctx.svc, ctx.user, a.queue_id);
    },
  }),
];
