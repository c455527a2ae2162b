import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { model } from '../model.ts';
import { narrowToHash, type Term } from '../narrow.ts';
import { formatTime } from '../util.ts';
import { Avatar } from './Avatar.tsx';
import { keepFocusInside, useModal } from './Dialog.tsx';
import { ROLES } from './Organization.tsx';
import { LABEL, StatusText } from './People.tsx';
import { ProfileFieldValues } from './ProfileFields.tsx';
import { ErrorLine, useRequest } from './request.tsx';
import { api } from '../api.ts';
import { isAdministrator } from './Organization.tsx';
import { ManageUser } from './ManageUser.tsx';
import { ManageBot, mayManageBot } from './ManageBot.tsx';
import { focusSettingWhenOpened } from '../overlays.ts';

/** The time of day where the user is, or null without a (known) time zone. */
function localTime(timeZone: string | undefined): string | null {
  if (!timeZone) return null;
  try {
    return formatTime(Date.now() / 1000 + model.serverTimeOffset, timeZone);
  } catch {
    return null;
  }
}

/**
 * A user's card (a click on a sender or on someone in People): who they
 * are, as the organization knows them, kept current by the events, with
 * ways to their direct messages and to the messages they sent, to copy the
 * Markdown that mentions them, and to mute or unmute them (not oneself); one's
 * own card leads to one's profile settings; an administrator's card of someone
 * else (not a bot) leads to "Manage user", which takes the card's place, and
 * a bot's card, for its owner and administrators, to "Manage bot". The
 * user groups they are in. Esc, a click outside or Close closes it, and the
 * focus goes back to where it was; Tab stays inside it meanwhile.
 */
export function UserCard({ userId, onClose }: { userId: number; onClose(): void }) {
  const box = useRef<HTMLDivElement>(null);
  /** Muting and copying: their errors show under the buttons. */
  const act = useRequest();
  /** Whether the mention syntax was just copied ("Copied" on its button for a moment). */
  const [copied, setCopied] = useState(false);
  /** "Manage user" (or "Manage bot") chosen: its dialog shows instead of the card. */
  const [managing, setManaging] = useState(false);
  useModal(onClose);
  // Right after the card is in the page: the focus is still where the click or key was.
  useLayoutEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    box.current?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, [userId]);
  const u = model.users.get(userId);
  const name = u ? model.withGuestMark(userId, u.full_name) : model.userName(userId);
  const go = (terms: Term[]) => {
    onClose();
    location.hash = narrowToHash(terms);
  };
  const role = ROLES.find(([r]) => r === u?.role)?.[1];
  const owner = u?.is_bot && u.bot_owner_id ? model.users.get(u.bot_owner_id) : undefined;
  const time = localTime(u?.timezone);
  const joined = u?.date_joined ? new Date(u.date_joined).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' }) : null;
  const status = model.statuses.get(userId);
  const muted = model.isUserMuted(userId);
  const presence = u && !u.is_bot && u.is_active ? LABEL[model.presenceOf(userId)] : null;
  // The user groups they are a member of (Zulip's profile lists them; the role's system groups are the Role line).
  const groups = [...model.groups.values()]
    .filter((g) => !g.is_system_group && !g.deactivated && g.members.includes(userId))
    .map((g) => g.name)
    .sort((a, b) => a.localeCompare(b));
  const copyMention = () =>
    void act.run(async () => {
      await navigator.clipboard.writeText(model.mentionSyntax(userId));
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    });
  if (managing) return u?.is_bot ? <ManageBot userId={userId} onClose={onClose} /> : <ManageUser userId={userId} onClose={onClose} />;
  const manageable = u && !u.is_bot && userId !== model.me.user_id && isAdministrator(model.me);
  const botManageable = mayManageBot(userId);
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="user-card" role="dialog" aria-modal="true" aria-labelledby="user-card-name" tabIndex={-1} ref={box} onKeyDown={keepFocusInside}>
        <button type="button" class="icon-btn user-card-close" aria-label="Close" onClick={onClose}>
          {'\u00d7'}
        </button>
        <Avatar userId={userId} name={u?.full_name ?? name} size="large" />
        <h1 id="user-card-name">{name}</h1>
        {userId === model.me.user_id && <p class="muted-text">(you)</p>}
        <dl class="user-card-facts">
          {role && <Fact term="Role">{role}</Fact>}
          {u?.is_bot && <Fact term="Bot">{owner ? `Owned by ${owner.full_name}` : 'Yes'}</Fact>}
          {u && !u.is_active && <Fact term="Account">Deactivated</Fact>}
          {presence && <Fact term="Presence">{presence}</Fact>}
          {(status?.status_text || status?.emoji_code) && (
            <Fact term="Status">
              <StatusText userId={userId} />
            </Fact>
          )}
          {u && <Fact term="Email">{u.delivery_email || u.email}</Fact>}
          {time && <Fact term="Local time">{time}</Fact>}
          {joined && <Fact term="Joined">{joined}</Fact>}
          {groups.length > 0 && <Fact term="Groups">{groups.join(', ')}</Fact>}
        </dl>
        <ProfileFieldValues userId={userId} />
        <div class="user-card-actions">
          <button type="button" class="btn primary" onClick={() => go([{ operator: 'dm', operand: [userId] }])}>
            Send direct message
          </button>
          <button type="button" class="btn" onClick={() => go([{ operator: 'sender', operand: userId }])}>
            View messages sent
          </button>
          <button type="button" class="btn" onClick={copyMention}>
            {copied ? 'Copied' : 'Copy mention syntax'}
          </button>
          {userId === model.me.user_id && (
            <a
              class="btn"
              href="#settings/profile"
              onClick={() => {
                // (The card's own close puts the focus back first; the address then opens Settings.)
                onClose();
              }}
            >
              Edit your profile
            </a>
          )}
          {userId === model.me.user_id && (
            <a
              class="btn"
              href="#settings/profile"
              onClick={() => {
                // Settings opens at one's profile with the status's text focused.
                focusSettingWhenOpened('set-status');
                onClose();
              }}
            >
              {status?.status_text || status?.emoji_code ? 'Edit status' : 'Set status'}
            </a>
          )}
          {userId !== model.me.user_id && (
            <button type="button" class="btn" disabled={act.busy} onClick={() => void act.run(() => api(muted ? 'DELETE' : 'POST', `/users/me/muted_users/${userId}`))}>
              {muted ? 'Unmute this user' : 'Mute this user'}
            </button>
          )}
          {(manageable || botManageable) && (
            <button type="button" class="btn" onClick={() => setManaging(true)}>
              {botManageable ? 'Manage bot' : 'Manage user'}
            </button>
          )}
        </div>
        <ErrorLine error={act.error} />
      </div>
    </div>
  );
}

/** One line of the card: what it is, and its value. */
function Fact({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <div class="fact">
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}
