/**
 * Generic integrations: `json` (any JSON document, posted as a code block
 * in the topic "JSON") and `slack_incoming` (Slack's incoming-webhook
 * format: text, blocks and attachments, Slack markup translated to Zulip's).
 */
import { badRequest, missingArgument } from '../errors.ts';
import { parsePayload, pyDumps, type Wild } from './wild.ts';
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

export const json: Integration = {
  name: 'JSON',
  displayName: 'JSON formatter',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    if (typeof p.value !== 'object' || p.value === null || Array.isArray(p.value)) throw badRequest('payload is not a dict');
    return [{ topic: 'JSON', body: '```json\n' + pyDumps(p.value, 2) + '\n```' }];
  },
};

type TextBlock = { type: string; text: string };

function textBlock(w: Wild, plainOnly = false): TextBlock {
  const type = w.at('type').str();
  if (!(plainOnly ? ['plain_text'] : ['plain_text', 'mrkdwn']).includes(type)) throw badRequest(`Invalid ${w.at('type').name}`);
  return { type, text: w.at('text').str() };
}

const joinPieces = (pieces: string[]): string =>
  pieces
    .map((x) => x.trim())
    .filter((x) => x !== '')
    .join('\n\n');

function renderElement(el: Wild): string {
  if (el.at('type').str() === 'image') return `[${el.at('alt_text').str()}](${el.at('image_url').url()})`;
  return '';
}

function renderBlock(block: Wild): string {
  const type = block.at('type').oneOf(['actions', 'context', 'divider', 'header', 'image', 'input', 'section'] as const);
  if (type === 'context' && block.get('elements').truthy) {
    return joinPieces(
      block.at('elements').list().map((el) => {
        const t = el.at('type').oneOf(['image', 'plain_text', 'mrkdwn'] as const);
        return t === 'image' ? renderElement(el) : textBlock(el).text;
      }),
    );
  }
  if (type === 'divider') return '----';
  if (type === 'header') return '## ' + textBlock(block.at('text'), true).text;
  if (type === 'image') {
    const url = block.at('image_url').url();
    let alt = block.at('alt_text').str();
    if (block.has('title')) alt = textBlock(block.at('title'), true).text;
    return `[${alt}](${url})`;
  }
  if (type === 'section') {
    const pieces: string[] = [];
    if (block.has('text')) pieces.push(textBlock(block.at('text')).text);
    if (block.has('accessory')) pieces.push(renderElement(block.at('accessory')));
    if (block.has('fields')) {
      const fields = block.at('fields').list().map((f) => textBlock(f));
      if (fields.length === 1) pieces.push(fields[0].text);
      else {
        const cells = fields.map((f) => f.text.replace(/\n/g, ' ').replace(/\|/g, ' '));
        let table = '| | |\n|-|-|\n';
        for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ''} |\n`;
        pieces.push(table);
      }
    }
    return joinPieces(pieces);
  }
  return '';
}

function renderAttachment(a: Wild): string {
  const pieces: string[] = [];
  if (a.get('title').truthy) {
    const title = a.at('title').str();
    pieces.push(a.get('title_link').truthy ? `## [${title}](${a.at('title_link').url()})` : `## ${title}`);
  }
  if (a.get('pretext').truthy) pieces.push(a.at('pretext').str());
  if (a.get('text').truthy) pieces.push(a.at('text').str());
  if (a.has('fields')) {
    const fields: string[] = [];
    for (const f of a.at('fields').list()) {
      const hasTitle = f.get('title').truthy;
      const hasValue = f.get('value').truthy;
      if (hasTitle && hasValue) fields.push(`*${f.at('title').str()}*: ${f.at('value').str()}`);
      else if (hasTitle) fields.push(`*${f.at('title').str()}*`);
      else if (hasValue) fields.push(f.at('value').str());
    }
    pieces.push(fields.join('\n'));
  }
  if (a.get('blocks').truthy) pieces.push(...a.at('blocks').list().map(renderBlock));
  if (a.get('image_url').truthy) pieces.push(`[](${a.at('image_url').url()})`);
  if (a.get('footer').truthy) pieces.push(a.at('footer').str());
  if (a.get('ts').truthy) pieces.push(`<time:${a.at('ts').int()}>`);
  return joinPieces(pieces);
}

const replaceLinks = (text: string): string => text.replace(/<(\w+?:\/\/.*?)\|(.*?)>/g, '[$2]($1)');

function replaceFormatting(text: string): string {
  // Slack's *bold* is Zulip's **bold**; Slack's _emphasis_ is Zulip's *emphasis*.
  return text
    .replace(/([^\w]|^)\*(?!\s+)([^*\n]+)(?<!\s)\*((?=[^\w])|$)/g, '$1**$2**$3')
    .replace(/([^\w]|^)[_](?!\s+)([^_\n]+)(?<!\s)[_]((?=[^\w])|$)/g, '$1*$2*$3');
}

export const slackIncoming: Integration = {
  name: 'SlackIncoming',
  displayName: 'Slack-compatible webhook',
  handle(req): WebhookMessage[] {
    let text: string | undefined;
    if (req.contentType === 'application/json') text = req.body;
    else text = req.param('payload');
    if (text === undefined) throw missingArgument('payload');
    const p = parsePayload(text);
    let topic = req.param('topic');
    if (topic === undefined && p.has('channel')) topic = p.at('channel').str().replace(/^[@#]/, '');
    if (topic === undefined) topic = '(no topic)';
    const pieces: string[] = [];
    if (p.get('blocks').truthy) pieces.push(...p.at('blocks').list().map(renderBlock));
    if (p.get('attachments').truthy) pieces.push(...p.at('attachments').list().map(renderAttachment));
    let body = joinPieces(pieces);
    if (body === '' && p.get('text').truthy) {
      if (p.get('icon_emoji').truthy) body = p.at('icon_emoji').str() + ' ';
      body += p.at('text').str();
      body = body.trim();
    }
    if (body === '') return [];
    return [{ topic, body: replaceFormatting(replaceLinks(body).trim()) }];
  },
};
