/** Every route module of the API. Add new modules here. */
import type { RouteDef } from '../route.ts';
import server from './server.ts';
import events from './events.ts';
import users from './users.ts';
import profileFields from './profile-fields.ts';
import settings from './settings.ts';
import presence from './presence.ts';
import typing from './typing.ts';
import userStatus from './user-status.ts';
import usersAdmin from './users-admin.ts';
import bots from './bots.ts';
import messages from './messages.ts';
import streams from './streams.ts';
import userGroups from './user-groups.ts';
import reactions from './reactions.ts';
import userTopics from './user-topics.ts';
import messageEdit from './message-edit.ts';
import uploads from './uploads.ts';
import drafts from './drafts.ts';
import push from './push.ts';
import invites from './invites.ts';
import scheduledMessages from './scheduled-messages.ts';
import mutedUsers from './muted-users.ts';
import alertWords from './alert-words.ts';
import readReceipts from './read-receipts.ts';
import realm from './realm.ts';
import channelTopics from './channel-topics.ts';
import clientFeatures from './client-features.ts';
import linkifiers from './linkifiers.ts';
import realmEmoji from './realm-emoji.ts';
import realmDomains from './realm-domains.ts';
import channelFolders from './channel-folders.ts';
import avatars from './avatars.ts';
import playgrounds from './playgrounds.ts';
import navigationViews from './navigation-views.ts';
import botStorage from './bot-storage.ts';
import reminders from './reminders.ts';
import realmExport from './realm-export.ts';

export function allRoutes(): RouteDef[] {
  return [...server, ...events, ...users, ...presence, ...typing, ...userStatus, ...usersAdmin, ...bots, ...profileFields, ...settings, ...streams, ...userGroups, ...messages, ...reactions, ...userTopics, ...messageEdit, ...uploads, ...drafts, ...push, ...invites, ...scheduledMessages, ...mutedUsers, ...alertWords, ...readReceipts, ...realm, ...channelTopics, ...clientFeatures, ...linkifiers, ...realmEmoji, ...realmDomains, ...channelFolders, ...avatars, ...playgrounds, ...navigationViews, ...botStorage, ...reminders, ...realmExport];
}
