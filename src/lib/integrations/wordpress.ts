/**
 * WordPress (/api/v1/external/wordpress): WordPress.com's webhooks post a
 * form with the action (`hook`: `publish_post`, `publish_page`, the event
 * type) and the fields chosen for it (`post_title`, `post_type`,
 * `post_url`; Zulip's placeholders where missing). Topic: `WordPress
 * notification`. Any other action is refused.
 */
import { badRequest } from '../errors.ts';
import type { Integration, WebhookMessage } from './types.ts';

const ACTIONS = ['publish_post', 'publish_page'];

export const wordpress: Integration = {
  name: 'WordPress',
  notifyOnMalformedJson: false,
  eventTypes: ACTIONS,
  handle(req): WebhookMessage[] {
    const hook = (req.param('hook') ?? 'WordPress action').trimEnd();
    if (!ACTIONS.includes(hook)) throw badRequest(`Unknown WordPress webhook action: ${hook}`);
    const type = req.param('post_type') ?? 'post';
    const title = req.param('post_title') ?? 'New WordPress post';
    const url = req.param('post_url') ?? 'WordPress post URL';
    return [{ topic: 'WordPress notification', body: `New ${type} published:\n* [${title}](${url})`, eventType: hook }];
  },
};
