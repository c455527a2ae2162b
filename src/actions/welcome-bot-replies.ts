/**
 * What Welcome Bot says besides its greeting: the commands the greeting
 * lists, and its answer to a direct message (see replyAsWelcomeBot in
 * messages.ts). Text only, so that the message-sending module can use it.
 */

export const BOT_COMMANDS = ['apps', 'profile', 'theme', 'channels', 'topics', 'message formatting', 'keyboard shortcuts', 'help'];

/** The commands as the greeting and the replies list them. */
export const commandList = (commands: readonly string[]): string => `${commands.map((c) => `\`${c}\``).join(', ')}.`;

/**
 * Welcome Bot's answer to a direct message, chosen as Zulip chooses it (the
 * whole message, in lower case, is one of the commands or one of their
 * other spellings); anything else gets the list of commands. The wording is
 * Parley's own; the links go to the help center (/help/ redirects there).
 */
export function welcomeBotReply(message: string): string {
  const said = message.trim().toLowerCase();
  switch (said) {
    case 'app':
    case 'apps':
      return "Zulip's [mobile and desktop apps](https://zulip.com/apps/) work with this organization: log in with its address and your email. A browser works too.";
    case 'profile':
      return 'Your name, [profile picture](/help/change-your-profile-picture) and [profile details](/help/edit-your-profile) are in your settings, under your profile.';
    case 'theme':
      return 'In your settings you can pick the [light or dark theme](/help/dark-theme), your [emoji set](/help/emoji-and-emoticons#change-your-emoji-set) and [your language](/help/change-your-language).';
    case 'stream':
    case 'streams':
    case 'channel':
    case 'channels':
      return "A channel gathers a team's or a subject's conversations: who sees a message depends on its channel. [More about channels](/help/introduction-to-channels).";
    case 'topic':
    case 'topics':
      return 'Every message in a channel has a topic, the title of its conversation, so you can read one conversation at a time however many are going on. [More about topics](/help/introduction-to-topics).';
    case 'keyboard':
    case 'shortcuts':
    case 'keyboard shortcuts':
      return 'With [keyboard shortcuts](/help/keyboard-shortcuts) you can read, reply and move around without the mouse.';
    case 'formatting':
    case 'message formatting':
      return 'Messages are written in [Markdown](/help/format-your-message-using-markdown): **bold**, *italics*, `code`, lists, quotes, code blocks, spoilers and more.';
    case 'help':
    case '?':
      return (
        `I know these words: ${commandList(BOT_COMMANDS.filter((c) => c !== 'help'))}\n\n` +
        'The [getting started guide](/help/getting-started-with-zulip) and the [help center](/help/) tell you more.'
      );
    default:
      return `Sorry, I did not understand that. Try one of these messages: ${commandList(BOT_COMMANDS)}`;
  }
}

