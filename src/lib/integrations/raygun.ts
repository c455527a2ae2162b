/**
 * Raygun (/api/v1/external/raygun): error notifications (a new error, one
 * that reoccurred, with its tags, affected user and custom data; the
 * minute and hourly follow-ups) and activity on an error (its status
 * changed, a comment, an assignment); the payload's `event` is the event
 * type; topic: `test`, as Zulip's.
 */
import { pyStr, type Wild } from './wild.ts';
import { isoGlobalTime, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'Raygun';

const appChunk = (p: Wild): string => `* **Application details**: [${p.at('application').at('name').str()}](${p.at('application').at('url').str()})\n`;
const messageChunk = (error: Wild): string => {
  const message = error.at('message').str();
  return message !== '' ? `* **Message**: ${message}\n` : '';
};
const timeChunk = (error: Wild): string => `* **First occurred**: ${isoGlobalTime(error.at('firstOccurredOn'))}\n* **Last occurred**: ${isoGlobalTime(error.at('lastOccurredOn'))}\n`;
const statsChunk = (error: Wild): string => `* ${error.at('usersAffected').int()} users affected with ${error.at('totalOccurrences').int()} total occurrences\n`;

function notification(p: Wild): string {
  const type = p.at('eventType').str();
  const error = p.at('error');
  if (type === 'NewErrorOccurred' || type === 'ErrorReoccurred') {
    const link = `[Error](${error.at('url').str()})`;
    let text = type === 'NewErrorOccurred' ? `New ${link} occurred:\n` : `${link} reoccurred:\n`;
    text += messageChunk(error) + timeChunk(error) + statsChunk(error);
    const instance = error.at('instance');
    // Tags, the affected user and custom data may each be null: then they are left out.
    const tags = instance.at('tags');
    if (tags.value !== null) text += `* **Tags**: ${tags.list().map((t) => t.str()).join(', ')}\n`;
    const user = instance.at('affectedUser');
    if (user.value !== null) {
      const uuid = user.at('UUID').str();
      text += `* **Affected user**: ${uuid.slice(0, 6)}...${uuid.slice(-5)}\n`;
    }
    const custom = instance.at('customData');
    if (custom.value !== null) {
      for (const key of custom.keys().sort()) text += `* **${key}**: ${pyStr(custom.at(key).value)}\n`;
    }
    return text + appChunk(p);
  }
  if (type.includes('FollowUp')) {
    const prefix = type === 'HourlyFollowUp' ? 'Hourly' : `${type.slice(0, type.length - 14)} minute`;
    return `${prefix} [follow-up error](${error.at('url').str()}):\n${messageChunk(error)}${timeChunk(error)}${statsChunk(error)}${appChunk(p)}`;
  }
  throw unsupportedEvent(NAME, type);
}

function activity(p: Wild): string {
  const type = p.at('eventType').str();
  if (!['StatusChanged', 'AssignedToUser', 'CommentAdded'].includes(type)) throw unsupportedEvent(NAME, type);
  const error = p.at('error');
  const link = `[Error](${error.at('url').str()})`;
  const user = error.at('user').str();
  let text: string;
  if (type === 'StatusChanged') text = `${link} status changed to **${error.at('status').str()}** by ${user}:\n`;
  else if (type === 'CommentAdded') text = `${user} commented on ${link}:\n\n\`\`\` quote\n${error.at('comment').str()}\n\`\`\`\n`;
  else text = `${user} assigned ${link} to ${error.at('assignedTo').str()}:\n`;
  return `${text}* **Timestamp**: ${isoGlobalTime(error.at('activityDate'))}\n${appChunk(p)}`;
}

export const raygun: Integration = {
  name: NAME,
  eventTypes: ['error_notification', 'error_activity'],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const event = p.at('event').str();
    let body: string;
    if (event === 'error_notification') body = notification(p);
    else if (event === 'error_activity') body = activity(p);
    else throw unsupportedEvent(NAME, event);
    return [{ topic: 'test', body, eventType: event }];
  },
};
