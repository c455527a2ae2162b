/**
 * Welcome Bot (Zulip's send_initial_direct_message): a direct message to
 * each new human user, and then the organization's (or the invitation's)
 * welcome_message_custom_text as a second message when there is one.
 */
import type { Services } from '../services.ts';
import { realmSettings } from '../lib/realm-settings.ts';
import { badRequest, requireAdmin } from '../lib/errors.ts';
import { realmById } from '../store/realm.ts';
import { transaction } from '../store/db.ts';
import { FLAG, setFlagBits } from '../store/messages.ts';
import { ROLE, type UserRow } from '../store/users.ts';
import { sendAsWelcomeBot } from './messages.ts';
import { welcomeBot } from './system-bots.ts';
import { BOT_COMMANDS, commandList } from './welcome-bot-replies.ts';

/** Zulip's organization types for education (education_nonprofit, education). */
const EDUCATION_ORG_TYPES = new Set([35, 36]);

/**
 * The first Welcome Bot message. Its parts are Zulip's (a welcome, the
 * getting-started guide, for administrators the set-up guide, class
 * versions of both for education organizations, how to reply, the
 * commands); the wording is Parley's own.
 */
export function welcomeMessageContent(realmUrl: string, user: UserRow, orgType: unknown): string {
  const education = EDUCATION_ORG_TYPES.has(Number(orgType));
  const gettingStarted = education
    ? `Using this for a class? Read the [guide for classes](${realmUrl}/help/using-zulip-for-a-class).`
    : `New here? The [getting started guide](${realmUrl}/help/getting-started-with-zulip) walks you through the basics.`;
  let setup = '';
  if (user.role <= ROLE.ADMINISTRATOR) {
    setup = education
      ? ` To set the organization up for your class, see [the guide for teachers](${realmUrl}/help/setting-up-zulip-for-a-class).`
      : ` Setting up the organization? See [the set-up guide](${realmUrl}/help/getting-your-organization-started-with-zulip).`;
  }
  return (
    "Hi, and welcome! I'm Welcome Bot, and this direct message is just for you.\n\n" +
    `${gettingStarted}${setup}\n\n` +
    'Want a hand? Reply to this message (click it, or press `r`) with one of these words: ' +
    commandList(BOT_COMMANDS)
  );
}

/**
 * Sends the Welcome Bot messages to a new human user. `customText`: the
 * invitation's welcome_message_custom_text (null or undefined: the
 * organization's; empty: none). As Zulip does for a new user, the first
 * message is starred in the user's flags, without an event (the user has
 * no event queue yet); `starGreeting: false` leaves it unstarred (the
 * administrators' test of the custom text).
 */
export async function sendWelcomeMessages(
  svc: Services,
  user: UserRow,
  customText?: string | null,
  opts: { starGreeting?: boolean } = {},
): Promise<{ customMessageId: number | null }> {
  if (user.is_bot) return { customMessageId: null };
  const realm = await realmById(svc.store.db, svc.realmId);
  const settings = realmSettings(realm.settings_json);
  const bot = await welcomeBot(svc);
  const send = (content: string, trusted: boolean) => sendAsWelcomeBot(svc, bot, user.id, content, trusted);
  const greetingId = await send(welcomeMessageContent(svc.config.externalUrl, user, settings.org_type), true);
  if (opts.starGreeting !== false) await transaction(svc.store, (tx) => setFlagBits(tx, user.id, [greetingId], FLAG.starred, true));
  const text = customText ?? (typeof settings.welcome_message_custom_text === 'string' ? settings.welcome_message_custom_text : '');
  return { customMessageId: text.trim() !== '' ? await send(text, false) : null };
}

/**
 * Welcome Bot greets a new account (however it was made: POST /users, the
 * admin command line, the first start). The account stands without the
 * greeting: a failure is logged, not raised.
 */
export async function greetNewUser(svc: Services, user: UserRow): Promise<void> {
  try {
    await sendWelcomeMessages(svc, user);
  } catch (err) {
    svc.log.error({ err, userId: user.id }, 'Welcome Bot message failed');
  }
}

/**
 * POST /realm/test_welcome_bot_custom_message: an administrator receives the
 * Welcome Bot's messages with this custom text, as a new user would; returns
 * the custom message's ID.
 */
export async function sendTestWelcomeMessage(svc: Services, admin: UserRow, text: string): Promise<number> {
  if (admin.role > ROLE.ADMINISTRATOR) throw requireAdmin();
  if (text.trim() === '') throw badRequest('Message must not be empty');
  const { customMessageId } = await sendWelcomeMessages(svc, admin, text, { starGreeting: false });
  return customMessageId!;
}
