/**
 * Every feature's /register state and queue filters, installed at start
 * (see registry.ts). Add new feature modules here. The order is the order
 * of the state in the /register response.
 */
import type { Services } from '../services.ts';
import { installFeatures, type Feature } from './registry.ts';
import realm from './realm.ts';
import presence from './presence.ts';
import userStatus from './user-status.ts';
import bots from './bots.ts';
import profileFields from './profile-fields.ts';
import settings from './settings.ts';
import streams from './streams.ts';
import userGroups from './user-groups.ts';
import messages from './messages.ts';
import userTopics from './user-topics.ts';
import realmEmoji from './realm-emoji.ts';
import drafts from './drafts.ts';
import scheduledMessages from './scheduled-messages.ts';
import mutedUsers from './muted-users.ts';
import alertWords from './alert-words.ts';
import clientFeatures from './client-features.ts';
import empty from './empty.ts';
import linkifiers from './linkifiers.ts';
import typing from './typing.ts';
import channelFolders from './channel-folders.ts';
import playgrounds from './playgrounds.ts';
import navigationViews from './navigation-views.ts';
import reminders from './reminders.ts';

export const FEATURES: Feature[] = [
  realm,
  presence,
  userStatus,
  bots,
  profileFields,
  settings,
  streams,
  userGroups,
  messages,
  userTopics,
  realmEmoji,
  drafts,
  scheduledMessages,
  mutedUsers,
  alertWords,
  clientFeatures,
  empty,
  linkifiers,
  typing,
  channelFolders,
  playgrounds,
  navigationViews,
  reminders,
];

/** Installs every feature on a server's queues (state providers and filters). */
export function installAllFeatures(svc: Services): void {
  installFeatures(svc, FEATURES);
}
