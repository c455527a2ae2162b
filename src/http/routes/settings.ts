/** Personal settings and the organization's defaults for new users. */
import { route, type RouteDef } from '../route.ts';
import { p, type Param, type ParamSpec } from '../params.ts';
import { USER_SETTINGS } from '../../lib/user-settings.ts';
import { updateOwnSettings, updateRealmUserDefaults, updateSettingsForUsers, type TargetUsers, type SettingsInput } from '../../actions/settings.ts';
import { v } from '../../lib/validators.ts';

/** PATCH /settings `target_users`: an administrator changes the settings of these users instead (feature level 444). */
const targetUsers = p
  .json(v.object({ user_ids: v.list(v.int({ min: 0 })), group_ids: v.list(v.int({ min: 0 })), skip_if_already_edited: v.bool() }, { optional: ['user_ids', 'group_ids'] }), 'object')
  .describe('An administrator changes the settings for these users (`user_ids`) and groups\' members (`group_ids`), skipping, when `skip_if_already_edited`, those who changed a setting themselves.');

/** One optional parameter per setting: strings are sent raw, the rest as JSON (Zulip's encoding). */
function settingParams(filter: (name: string) => boolean): ParamSpec {
  const out: ParamSpec = {};
  for (const [name, def] of Object.entries(USER_SETTINGS)) {
    if (!filter(name)) continue;
    const param: Param<unknown> =
      typeof def.default === 'string' ? p.custom<unknown>('string', (raw, n) => def.validator(raw, n)) : p.json(def.validator, typeof def.default);
    out[name] = param.optional();
  }
  return out;
}

const userSettingParams = settingParams(() => true);
const realmDefaultParams = settingParams((name) => USER_SETTINGS[name].realmDefault);

function pickSettings(args: Record<string, unknown>, spec: ParamSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(spec)) if (args[name] !== undefined) out[name] = args[name];
  return out;
}

const settingsRoute = (path: string, summary: string): RouteDef =>
  route({
    method: 'PATCH',
    path,
    auth: 'user',
    humanOnly: true,
    summary,
    params: {
      full_name: p.str().optional(),
      email: p.str().optional(),
      old_password: p.str().optional(),
      new_password: p.str().optional(),
      target_users: targetUsers.optional(),
      ...userSettingParams,
    },
    handler: (ctx, a) => {
      const args = a as Record<string, unknown>;
      const input: SettingsInput = {
        fullName: args.full_name as string | undefined,
        email: args.email as string | undefined,
        oldPassword: args.old_password as string | undefined,
        newPassword: args.new_password as string | undefined,
        keepSession: ctx.sessionIdHash,
        settings: pickSettings(args, userSettingParams),
      };
      const target = args.target_users as TargetUsers | undefined;
      return target ? updateSettingsForUsers(ctx.svc, ctx.user, target, input) : updateOwnSettings(ctx.svc, ctx.user, input);
    },
  });

export default [
  settingsRoute('/settings', 'Update settings'),
  // Deprecated aliases Zulip keeps for older clients.
  settingsRoute('/settings/display', 'Update display settings (deprecated alias)'),
  settingsRoute('/settings/notifications', 'Update notification settings (deprecated alias)'),
  route({
    method: 'PATCH',
    path: '/realm/user_settings_defaults',
    auth: 'user',
    summary: 'Update realm-level defaults of user settings',
    params: realmDefaultParams,
    handler: async (ctx, a) => {
      await updateRealmUserDefaults(ctx.svc, ctx.user, pickSettings(a as Record<string, unknown>, realmDefaultParams));
    },
  }),
];
