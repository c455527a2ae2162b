/**
 * The addresses that open a dialog over the app, as Zulip's web app names
 * them (its overlay addresses: #settings/<section>, #organization/<section>,
 * #channels/…, #groups, #invite, #drafts, #keyboard-shortcuts,
 * #message-formatting, #search-operators, #about-zulip, #user/<id>,
 * …). Messages link to them (Notification Bot's "#channels/new", the data
 * export's "#organization/data-exports-admin"), and so do emails
 * ("#settings/notifications") and the unread banner ("#settings/preferences").
 */

/** The help's tabs, by Zulip's addresses of them. */
export type HelpTab = 'keyboard-shortcuts' | 'message-formatting' | 'search-operators';

/** The Channels dialog's tabs (#channels/subscribed, /notsubscribed, /all). */
export type ChannelsTab = 'subscribed' | 'notsubscribed' | 'all';

/** The part of one channel's settings an address names (#channels/<id>/<name>/general, /personal, /subscribers). */
export type ChannelPart = 'general' | 'personal' | 'subscribers';

/** What an address opens over the app. A settings section is the id of its heading in the Settings dialog. */
export type Overlay =
  | { kind: 'settings'; section: string | null }
  | { kind: 'channels'; channel: number | null; part: ChannelPart | null; create: boolean; tab: ChannelsTab }
  | { kind: 'saved'; which: '#drafts' | '#scheduled' | '#reminders' }
  | { kind: 'help'; tab: HelpTab }
  | { kind: 'about' }
  | { kind: 'user'; id: number };

/** Zulip's personal settings sections (#settings/<section>), by the heading each opens at. */
const PERSONAL: Record<string, string> = {
  profile: 'profile-title',
  'account-and-privacy': 'account-title',
  preferences: 'display-title',
  notifications: 'notifications-title',
  'your-bots': 'bots-title',
  'alert-words': 'alert-words-title',
  'uploaded-files': 'uploads-title',
  topics: 'topics-title',
  'muted-users': 'muted-users-title',
};

/** Zulip's organization settings sections (#organization/<section>), by the heading each opens at. */
const ORGANIZATION: Record<string, string> = {
  'organization-profile': 'org-title',
  'organization-settings': 'org-title',
  'organization-permissions': 'perm-title',
  'emoji-settings': 'emoji-title',
  'linkifier-settings': 'linkifiers-title',
  'playground-settings': 'playgrounds-title',
  users: 'org-people-title',
  'deactivated-users-admin': 'org-people-title',
  'invites-list-admin': 'invitations-title',
  'bot-list-admin': 'bots-title',
  'profile-field-settings': 'profile-fields-title',
  'organization-level-user-defaults': 'defaults-title',
  'channel-folders': 'folders-title',
  'data-exports-admin': 'org-exports-title',
};

let focusWhenOpened: string | null = null;
/**
 * The Settings dialog, opened next by its address, is to show and focus
 * the field with this ID (a link to one setting, such as the unread
 * banner's "Change setting"); Zulip's address names only the section.
 */
export function focusSettingWhenOpened(id: string): void {
  focusWhenOpened = id;
}

/** The field the Settings dialog just opened is to focus (see focusSettingWhenOpened), once. */
export function takeSettingToFocus(): string | null {
  const id = focusWhenOpened;
  focusWhenOpened = null;
  return id;
}

/** The address of a heading of the Settings dialog (Zulip's name for its section), if it has one. */
export function settingsSectionHash(heading: string): string | null {
  for (const [section, id] of Object.entries(PERSONAL)) if (id === heading) return `#settings/${section}`;
  for (const [section, id] of Object.entries(ORGANIZATION)) if (id === heading) return `#organization/${section}`;
  if (heading === 'groups-title') return '#groups';
  if (heading === 'invite-title') return '#invite';
  return null;
}

/** What an address opens over the app, if it is one of Zulip's overlay addresses that Parley has. */
export function overlayAt(hash: string): Overlay | null {
  const [category = '', section = '', ...rest] = hash.replace(/^#/, '').replace(/\/$/, '').split('/');
  switch (category) {
    case 'settings':
      return { kind: 'settings', section: PERSONAL[section] ?? null };
    case 'organization':
      // (#organization/users/invitations: Zulip's tab of the invitations; /active and /deactivated: the people.)
      if (section === 'users' && rest[0] === 'invitations') return { kind: 'settings', section: 'invitations-title' };
      return { kind: 'settings', section: ORGANIZATION[section] ?? 'org-title' };
    case 'groups':
      return { kind: 'settings', section: 'groups-title' };
    case 'invite':
      return { kind: 'settings', section: 'invite-title' };
    // (#streams: Zulip's older name, in messages written before the rename.)
    case 'channels':
    case 'streams':
      return {
        kind: 'channels',
        channel: /^\d+$/.test(section) ? Number(section) : null,
        part: rest[1] === 'general' || rest[1] === 'personal' || rest[1] === 'subscribers' ? rest[1] : null,
        create: section === 'new' && !rest.length,
        tab: section === 'subscribed' || section === 'notsubscribed' ? section : 'all',
      };
    case 'drafts':
    case 'scheduled':
    case 'reminders':
      return section ? null : { kind: 'saved', which: `#${category}` as const };
    case 'keyboard-shortcuts':
    case 'message-formatting':
    case 'search-operators':
      return { kind: 'help', tab: category };
    case 'about-zulip':
      return { kind: 'about' };
    case 'user':
      return /^\d+$/.test(section) ? { kind: 'user', id: Number(section) } : null;
    default:
      return null;
  }
}
