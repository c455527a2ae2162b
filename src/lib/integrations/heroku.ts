/**
 * Heroku (/api/v1/external/heroku): a deploy hook's form post (`app`,
 * `user`, `url`, `head`, `git_log`): who deployed which version of the app,
 * with the commits deployed; topic: the app's name.
 */
import { requiredParam, type Integration, type WebhookMessage } from './types.ts';

export const heroku: Integration = {
  name: 'Heroku',
  notifyOnMalformedJson: false,
  handle(req): WebhookMessage[] {
    const [head, app, user, url, gitLog] = ['head', 'app', 'user', 'url', 'git_log'].map((name) => requiredParam(req, name));
    return [{ topic: app, body: `${user} deployed version ${head} of [${app}](${url}):\n\n\`\`\` quote\n${gitLog}\n\`\`\`` }];
  },
};
