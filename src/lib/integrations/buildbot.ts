/**
 * Buildbot (/api/v1/external/buildbot, its ZulipStatusPush reporter): a
 * build started (`new`) or finished (`finished`, with its result); the
 * event is the event type; topic: the build's project, or `general`.
 */
import { badRequest } from '../errors.ts';
import { jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

/** Buildbot's result codes, in order. */
const RESULTS = ['success', 'warnings', 'failure', 'skipped', 'exception', 'retry', 'cancelled'];

export const buildbot: Integration = {
  name: 'Buildbot',
  eventTypes: ['new', 'finished'],
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const topic = p.at('project').str() || 'general';
    const event = p.at('event').str();
    const build = `Build [#${p.at('buildid').int()}](${p.at('url').str()})`;
    const name = `**${p.at('buildername').str()}**`;
    let body: string;
    if (event === 'new') body = `${build} for ${name} started.`;
    else if (event === 'finished') {
      const code = p.at('results').int();
      // As Python indexes the list: negative codes count from its end.
      const status = RESULTS.at(code);
      if (status === undefined) throw badRequest(`payload['results'] is not a Buildbot result: ${code}`);
      body = `${build} (result: ${status}) for ${name} finished.`;
    } else throw unsupportedEvent('Buildbot', event);
    return [{ topic, body, eventType: event }];
  },
};
