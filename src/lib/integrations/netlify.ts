/**
 * Netlify (/api/v1/external/netlify, event in `X-Netlify-Event`): a deploy
 * building, ready (created), failed (with Netlify's error), locked or
 * unlocked, in Zulip's texts; topic: the branch.
 */
import { eventHeader, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

const NAME = 'Netlify';
const EVENTS = ['deploy_failed', 'deploy_locked', 'deploy_unlocked', 'deploy_building', 'deploy_created'];

export const netlify: Integration = {
  name: NAME,
  eventTypes: EVENTS,
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const event = eventHeader(req, 'X-Netlify-Event');
    if (!EVENTS.includes(event)) throw unsupportedEvent(NAME, event);
    // Read in Zulip's order, so that a payload missing several fields is refused naming the same one; every event needs them all.
    const error = event === 'deploy_failed' ? p.at('error_message').str() : null;
    const [name, url, branch, state] = ['name', 'url', 'branch', 'state'].map((k) => p.at(k).str());
    const ending = error ?? (event === 'deploy_locked' ? 'is now locked.' : event === 'deploy_unlocked' ? 'is now unlocked.' : `is now ${state}.`);
    return [{ topic: branch, body: `The build [${name}](${url}) on branch ${branch} ${ending}`, eventType: event }];
  },
};
