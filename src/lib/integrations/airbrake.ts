/**
 * Airbrake (/api/v1/external/airbrake): an error occurred, linked to its
 * group in Airbrake; topic: the project's name. Airbyte
 * (/api/v1/external/airbyte): a sync succeeded or failed (its source and
 * destination, records, bytes, duration, and the error), or the text of
 * Airbyte's test notification; topic: `<workspace> - <connection>`.
 */
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

export const airbrake: Integration = {
  name: 'Airbrake',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    const error = p.at('error');
    const topic = error.at('project').at('name').str();
    const body = `[${error.at('error_class').str()}](${p.at('airbrake_error_url').str()}): "${error.at('error_message').str()}" occurred.`;
    return [{ topic, body }];
  },
};

export const airbyte: Integration = {
  name: 'Airbyte',
  handle(req): WebhookMessage[] {
    const p = jsonPayload(req);
    // Airbyte's test notifications carry only a text.
    if (!p.has('data')) return [{ topic: 'Airbyte notification', body: p.at('text').str() }];
    const d = p.at('data');
    const link = (w: string): string => `[${d.at(w).at('name').str()}](${d.at(w).at('url').str()})`;
    const workspace = d.at('workspace').at('name').str();
    const connection = d.at('connection').at('name').str();
    const [source, destination, connectionLink] = [link('source'), link('destination'), link('connection')];
    const ok = d.at('success').bool();
    const duration = d.at('durationFormatted').str();
    const records = `${d.at('recordsEmitted').int()} emitted, ${d.at('recordsCommitted').int()} committed`;
    const bytes = `${d.at('bytesEmittedFormatted').str()} emitted, ${d.at('bytesCommittedFormatted').str()} committed`;
    let body =
      `${ok ? ':green_circle:' : ':red_circle:'} Airbyte sync **${ok ? 'succeeded' : 'failed'}** for ${connectionLink}.\n\n\n` +
      `* **Source:** ${source}\n* **Destination:** ${destination}\n* **Records:** ${records}\n* **Bytes:** ${bytes}\n* **Duration:** ${duration}\n`;
    if (!ok) body += `\n**Error message:** ${d.at('errorMessage').str()}`;
    return [{ topic: `${workspace} - ${connection}`, body }];
  },
};
