/**
 * Thinkst Canary (/api/v1/external/thinkst): an alert from a Canary or a
 * Canarytoken (`AlertType`), with what Thinkst sent of its incident ID,
 * token, kind, time, the Canary's address and location, how often it was
 * triggered, the source and its reverse DNS, and the alert's further
 * details (values with stars, such as passwords, in backticks). Topic:
 * `canary alert - <name>` or `canarytoken alert - <name>`.
 */
import { Wild } from './wild.ts';
import { isoGlobalTime, jsonPayload, type Integration, type WebhookMessage } from './types.ts';

const isToken = (m: Wild): boolean => m.at('AlertType').str() === 'CanarytokenIncident';
const name = (m: Wild): string => (isToken(m) ? m.at('Reminder').str() : m.at('CanaryName').str());

function body(m: Wild): string {
  let text = `**:alert: ${isToken(m) ? 'Canarytoken' : 'Canary'} *${name(m)}* has been triggered!**\n\n${m.at('Intro').str()}\n\n`;
  if (m.has('IncidentHash')) text += `**Incident ID:** \`${m.at('IncidentHash').str()}\`\n`;
  if (m.has('Token')) text += `**Token:** \`${m.at('Token').str()}\`\n`;
  if (m.has('Description')) text += `**Kind:** ${m.at('Description').str()}\n`;
  if (m.has('Timestamp')) {
    // Thinkst writes "YYYY-MM-DD HH:MM:SS (UTC)".
    const stamp = m.at('Timestamp');
    text += `**Timestamp:** ${isoGlobalTime(new Wild(stamp.name, stamp.str().replace(' (UTC)', 'Z')))}\n`;
  }
  if (m.has('CanaryIP')) text += `**Canary IP:** \`${m.at('CanaryIP').str()}\`\n`;
  if (m.has('CanaryLocation')) text += `**Canary location:** ${m.at('CanaryLocation').str()}\n`;
  if (m.has('Triggered')) {
    const times = m.at('Triggered').int();
    text += `**Triggered:** ${times} ${times > 1 ? 'times' : 'time'}\n`;
  }
  const source = m.has('SourceIP') ? m.at('SourceIP').str() : '';
  if (source) text += `**Source IP:** \`${source}\`\n`;
  const dns = m.has('ReverseDNS') ? m.at('ReverseDNS').str() : '';
  if (dns) text += `**Reverse DNS:** \`${dns}\`\n`;
  if (m.has('AdditionalDetails')) {
    for (const detail of m.at('AdditionalDetails').list()) {
      const key = detail.at(0).str();
      const raw = detail.at(1);
      const value = typeof raw.value === 'number' ? String(raw.int()) : raw.str();
      text += typeof raw.value === 'string' && value.includes('*') ? `**${key}:** \`${value}\`\n` : `**${key}:** ${value}\n`;
    }
  }
  return text;
}

export const thinkst: Integration = {
  name: 'Thinkst',
  handle(req): WebhookMessage[] {
    // Zulip names this body `message` in its validation errors.
    const m = new Wild('message', jsonPayload(req).value);
    const text = body(m);
    return [{ topic: `${isToken(m) ? 'canarytoken' : 'canary'} alert - ${name(m)}`, body: text }];
  },
};
