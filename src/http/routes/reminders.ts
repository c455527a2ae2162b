/** Message reminders: POST/GET /reminders, DELETE /reminders/{reminder_id}. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { createReminder, listReminders, removeReminder } from '../../actions/reminders.ts';

export default [
  route({
    method: 'POST',
    path: '/reminders',
    auth: 'user',
    summary: 'Create a message reminder',
    params: { message_id: p.int(), scheduled_delivery_timestamp: p.int(), note: p.str().optional() },
    handler: (ctx, a) => createReminder(ctx.svc, ctx.user, a.message_id, a.scheduled_delivery_timestamp, a.note),
  }),
  route({
    method: 'GET',
    path: '/reminders',
    auth: 'user',
    summary: 'Get reminders',
    params: {},
    handler: (ctx) => listReminders(ctx.svc, ctx.user),
  }),
  route({
    method: 'DELETE',
    path: '/reminders/:reminder_id(^\\d+$)',
    auth: 'user',
    summary: 'Delete a reminder',
    pathParams: { reminder_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await removeReminder(ctx.svc, ctx.user, a.reminder_id);
    },
  }),
];
