/** Mobile push: POST /mobile_push/register (E2EE push device registration). */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { registerPushDevice } from '../../actions/push.ts';

// Raw text: the action checks them after the bot check, in Zulip's order.
const raw = (type: string) => p.custom<string>(type, (s) => s).optional();

export default [
  route({
    method: 'POST',
    path: '/mobile_push/register',
    auth: 'user',
    summary: 'Register E2EE push device',
    params: {
      device_id: raw('integer'),
      token_kind: raw('string(fcm|apns)'),
      push_key: raw('string'),
      push_key_id: raw('integer'),
      bouncer_public_key: raw('string'),
      encrypted_push_registration: raw('string'),
      token_id: raw('string'),
    },
    handler: async (ctx, a) => {
      await registerPushDevice(ctx.svc, ctx.user, a);
    },
  }),
];
