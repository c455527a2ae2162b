import { model, type GroupSettingValue, type UserGroup } from '../model.ts';

/** What server_supported_permission_settings says of one setting (the fields used here). */
export interface PermissionConfig {
  require_system_group?: boolean;
  allow_internet_group?: boolean;
  allow_nobody_group?: boolean;
  allow_everyone_group?: boolean;
  allowed_system_groups?: string[];
}

/** server_supported_permission_settings' configurations of one kind of setting: the organization's (`realm`), a channel's (`stream`) or a user group's (`group`). */
export function permissionConfigs(kind: 'realm' | 'stream' | 'group'): Record<string, PermissionConfig> {
  return (model.realm.server_supported_permission_settings as Record<string, Record<string, PermissionConfig>> | undefined)?.[kind] ?? {};
}

/** The system groups, in the order offered (each role takes in the ones above it). */
const SYSTEM_GROUPS: Array<[string, string]> = [
  ['role:owners', 'Owners'],
  ['role:administrators', 'Administrators'],
  ['role:moderators', 'Moderators'],
  ['role:fullmembers', 'Full members'],
  ['role:members', 'Members'],
  ['role:everyone', 'Everyone, guests included'],
  ['role:nobody', 'Nobody'],
];

const CUSTOM = 'custom';

/** A group's name as shown: the system groups by their role. */
function groupLabel(g: UserGroup): string {
  if (!g.is_system_group) return g.deactivated ? `${g.name} (deactivated)` : g.name;
  return SYSTEM_GROUPS.find(([name]) => name === g.name)?.[1] ?? g.name;
}

/** The groups a setting may be set to: the system groups its configuration allows, then the active user groups (unless only system groups are allowed). */
function choices(config: PermissionConfig | undefined): UserGroup[] {
  const groups = [...model.groups.values()];
  const system = SYSTEM_GROUPS.map(([name]) => groups.find((g) => g.is_system_group && g.name === name)).filter((g): g is UserGroup => {
    if (!g) return false;
    if (!config) return true;
    if (config.allowed_system_groups?.length) return config.allowed_system_groups.includes(g.name);
    if (g.name === 'role:nobody') return config.allow_nobody_group !== false;
    if (g.name === 'role:everyone') return !!config.allow_everyone_group;
    return true;
  });
  if (config?.require_system_group) return system;
  const own = groups.filter((g) => !g.is_system_group && !g.deactivated).sort((a, b) => a.name.localeCompare(b.name));
  return [...system, ...own];
}

/** An anonymous group, described: its groups, then its people. */
function describeCustom(value: Exclude<GroupSettingValue, number>): string {
  const names = [
    ...value.direct_subgroups.map((id) => {
      const g = model.groups.get(id);
      return g ? groupLabel(g) : `Group ${id}`;
    }),
    ...value.direct_members.map((id) => model.userName(id)),
  ];
  return names.length ? `Custom: ${names.join(', ')}` : 'Custom: nobody';
}

/** Zulip's change of a group setting: the new value, and the one it replaces (refused if that is no longer so). */
export type GroupSettingChange = { new: number; old?: GroupSettingValue };

/**
 * One group setting (an organization's, a user group's) as a select: its
 * allowed groups, plus what it is now when that is not among them (a custom
 * group, say). A choice is handed to `save` with Zulip's {new, old} change;
 * `onChange` runs the saving (and shows how it went).
 */
export function GroupSettingSelect(props: {
  id: string;
  label: string;
  current: GroupSettingValue | undefined;
  config: PermissionConfig | undefined;
  disabled: boolean;
  save(next: number, change: GroupSettingChange): Promise<void>;
  onChange(change: () => Promise<void>): void;
}) {
  const { id, current } = props;
  const options = choices(props.config);
  const currentGroup = typeof current === 'number' ? model.groups.get(current) : undefined;
  if (currentGroup && !options.includes(currentGroup)) options.push(currentGroup);
  const value = current === undefined ? '' : typeof current === 'number' ? String(current) : CUSTOM;
  return (
    <>
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={value}
        disabled={props.disabled || current === undefined}
        onChange={(e) => {
          const next = Number(e.currentTarget.value);
          if (!Number.isInteger(next)) return;
          props.onChange(() => props.save(next, current === undefined ? { new: next } : { new: next, old: current }));
        }}
      >
        {options.map((g) => (
          <option key={g.id} value={String(g.id)}>
            {groupLabel(g)}
          </option>
        ))}
        {typeof current === 'object' && (
          <option value={CUSTOM} disabled>
            {describeCustom(current)}
          </option>
        )}
        {current === undefined && <option value="">Not available</option>}
      </select>
    </>
  );
}
