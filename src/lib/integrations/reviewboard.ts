/**
 * Review Board (/api/v1/external/reviewboard; the X-ReviewBoard-Event
 * header): review requests published, reopened and closed (with their
 * description, status, reviewers, branch), reviews and replies published;
 * topic: the repository's name.
 */
import { badRequest } from '../errors.ts';
import type { Wild } from './wild.ts';
import { eventHeader, jsonPayload, unsupportedEvent, type Integration, type WebhookMessage } from './types.ts';

/** "**a**", or "**a**, **b**, and **c**". */
function targetPeople(request: Wild): string {
  const people = request.at('target_people').list();
  if (people.length === 0) throw badRequest(`${request.at('target_people').name} is empty`);
  const names = people.map((p) => `**${p.at('title').str()}**`);
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')}, and ${names[names.length - 1]}`;
}

/** A review request's opening line and its quoted details; `extra` goes after the reviewers. */
function requestBody(p: Wild, who: string, verb: string, extra: string[]): string {
  const request = p.at('review_request');
  const head = `**${who}** ${verb} [#${request.at('id').int()}: ${request.at('summary').str()}](${request.at('absolute_url').str()}):`;
  const details = [
    `**Description**: ${request.at('description').str()}`,
    `**Status**: ${request.at('status').str()}`,
    `**Target people**: ${targetPeople(request)}`,
  ];
  const branch = request.get('branch').strOrNull();
  const more = branch ? [...extra, `**Branch**: ${branch}`] : extra;
  // Without anything more, Zulip's template leaves an empty line before the closing fence.
  return `${head}\n\n\`\`\` quote\n${details.join('\n')}\n${more.length ? more.join('\n') : ''}\n\`\`\``;
}

const BODIES: Record<string, (p: Wild) => string> = {
  review_request_published: (p) => requestBody(p, p.at('review_request').at('links').at('submitter').at('title').str(), 'opened', []),
  review_request_reopened: (p) => requestBody(p, p.at('reopened_by').at('username').str(), 'reopened', []),
  review_request_closed: (p) => requestBody(p, p.at('closed_by').at('username').str(), 'closed', [`**Close type**: ${p.at('close_type').str()}`]),
  review_published: (p) => {
    const review = p.at('review');
    const request = p.at('review_request');
    const link = `[#${request.at('id').int()}: ${request.at('summary').str()}](${request.at('absolute_url').str()})`;
    return `**${review.at('links').at('user').at('title').str()}** [reviewed](${review.at('absolute_url').str()}) ${link}:\n\n**Review**:\n\`\`\` quote\n${review.at('body_top').str()}\n\`\`\``;
  },
  reply_published: (p) => {
    const reply = p.at('reply');
    const request = p.at('review_request');
    const link = `[#${request.at('id').int()}: ${request.at('summary').str()}](${request.at('links').at('self').at('href').str()})`;
    return `**${reply.at('links').at('user').at('title').str()}** [replied](${reply.at('links').at('self').at('href').str()}) to ${link}:\n\n**Reply**:\n\`\`\` quote\n${reply.at('body_top').str()}\n\`\`\``;
  },
};

export const reviewboard: Integration = {
  name: 'ReviewBoard',
  displayName: 'Review Board',
  eventTypes: Object.keys(BODIES),
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const event = eventHeader(req, 'X-ReviewBoard-Event', 'Review Board');
    if (!Object.hasOwn(BODIES, event)) throw unsupportedEvent('ReviewBoard', event);
    const body = BODIES[event]!(p);
    return [{ topic: p.at('review_request').at('links').at('repository').at('title').str(), body, eventType: event }];
  },
};
