/** Organization settings: PATCH /realm. */
import { route } from '../route.ts';
import { p, type Param } from '../params.ts';
import { groupSettingUpdate, type GroupSettingValue } from '../../actions/group-settings.ts';
import {
  MAX_REALM_DESCRIPTION_LENGTH,
  MAX_REALM_NAME_LENGTH,
  parseTimeLimit,
  REALM_GROUP_SETTING_RULES,
  REALM_TOPICS_POLICIES,
  updateRealmSettings,
} from '../../actions/realm-settings.ts';

type GroupUpdate = { new: GroupSettingValue; old?: GroupSettingValue };

/** A time limit: JSON integer, or "unlimited" (JSON-encoded or raw, as clients send it). */
const timeLimit = (): Param<number | null> =>
  p.custom<number | null>('integer|string', (raw, name) => {
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a raw string such as unlimited
    }
    return parseTimeLimit(value, name);
  });

const groupParams = Object.fromEntries(Object.keys(REALM_GROUP_SETTING_RULES).map((n) => [n, p.json(groupSettingUpdate, 'object').optional()])) as Record<
  string,
  Param<GroupUpdate | undefined>
>;

const settingParams = {
  allow_message_editing: p.bool().optional(),
  message_content_edit_limit_seconds: timeLimit().optional(),
  message_content_delete_limit_seconds: timeLimit().optional(),
  topics_policy: p.enumStr(REALM_TOPICS_POLICIES).optional(),
  enable_spectator_access: p.bool().optional(),
  name_changes_disabled: p.bool().optional(),
  require_unique_names: p.bool().optional(),
  new_stream_announcements_stream_id: p.int().optional(),
  signup_announcements_stream_id: p.int().optional(),
};

export default [
  route({
    method: 'PATCH',
    path: '/realm',
    auth: 'user',
    summary: 'Update realm settings',
    params: {
      name: p.str({ maxLength: MAX_REALM_NAME_LENGTH }).optional(),
      description: p.str({ maxLength: MAX_REALM_DESCRIPTION_LENGTH }).optional(),
      ...settingParams,
      ...groupParams,
    },
    handler: (ctx, a) => {
      const args = a as Record<string, unknown>;
      const settings: Record<string, unknown> = {};
      for (const n of Object.keys(settingParams)) if (args[n] !== undefined) settings[n] = args[n];
      const groupSettings: Record<string, GroupUpdate> = {};
      for (const n of Object.keys(groupParams)) if (args[n] !== undefined) groupSettings[n] = args[n] as GroupUpdate;
      return updateRealmSettings(ctx.svc, ctx.user, { name: args.name as string | undefined, description: args.description as string | undefined, settings, groupSettings });
    },
  }),
];
