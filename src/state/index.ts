/** Loads every initial-state provider (each module registers itself). */
import './realm.ts';
import './presence.ts';
import './user-status.ts';
import './bots.ts';
import './profile-fields.ts';
import './settings.ts';
import './streams.ts';
import './user-groups.ts';
import './messages.ts';
import './user-topics.ts';
import './realm-emoji.ts';
import './drafts.ts';
import './scheduled-messages.ts';
import './muted-users.ts';
import './alert-words.ts';
import './client-features.ts';
import './empty.ts';
