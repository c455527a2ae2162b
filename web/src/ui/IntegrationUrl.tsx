import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model } from '../model.ts';
import { Dialog } from './Dialog.tsx';
import { ErrorLine, useRequest } from './request.tsx';

/** An integration the server takes at /api/v1/external/<name> (register's realm_incoming_webhook_bots). */
interface Integration {
  name: string;
  display_name: string;
}

/** "Where to send notifications": a direct message to oneself. */
const TO_ME = -1;

/**
 * "Generate URL for an integration" (an incoming webhook bot's, as Zulip's):
 * the integration, where its notifications go (a channel one is subscribed
 * to, or a direct message to oneself) and, for a channel, one topic for
 * them all if wanted; the URL the third party is to call, with the bot's API
 * key (GET /bots/{id}/api_key), shown and copied.
 */
export function IntegrationUrl({ botId, onClose }: { botId: number; onClose(): void }) {
  const [apiKey, setApiKey] = useState<string | null>(null);
  const [integration, setIntegration] = useState('');
  const [channel, setChannel] = useState(TO_ME);
  const [oneTopic, setOneTopic] = useState(false);
  const [topic, setTopic] = useState('');
  const [copied, setCopied] = useState(false);
  const req = useRequest();
  useEffect(() => {
    void req.run(async () => setApiKey((await api('GET', `/bots/${botId}/api_key`)).api_key as string));
  }, [botId]);
  const integrations = ((model.realm.realm_incoming_webhook_bots ?? []) as Integration[]).slice().sort((a, b) => a.display_name.localeCompare(b.display_name));
  const channels = model.activeSubs();
  const toChannel = channel !== TO_ME;
  let url: string | null = null;
  if (apiKey !== null && integration) {
    const params = new URLSearchParams({ api_key: apiKey });
    if (toChannel) {
      params.set('stream', String(channel));
      if (oneTopic && topic.trim()) params.set('topic', topic.trim());
    }
    const base = String(model.realm.realm_url ?? location.origin);
    url = `${base}/api/v1/external/${integration}?${params.toString()}`;
  }
  // (As Zulip's: no URL to copy while a single topic is asked for without one.)
  const ready = url !== null && !(toChannel && oneTopic && !topic.trim());
  const changed = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setCopied(false);
  };
  return (
    <Dialog id="integration-url-title" title="Generate URL for an integration" onClose={onClose}>
      <div class="settings-group">
        <label for="integration-name">Integration</label>
        <select
          id="integration-name"
          value={integration}
          onChange={(e) => {
            // Another integration starts over, as Zulip's: a direct message, no topic.
            changed(setIntegration)(e.currentTarget.value);
            setChannel(TO_ME);
            setOneTopic(false);
            setTopic('');
          }}
        >
          <option value="">Select an integration</option>
          {integrations.map((i) => (
            <option key={i.name} value={i.name}>
              {i.display_name}
            </option>
          ))}
        </select>
        <label for="integration-channel">Where to send notifications</label>
        <select id="integration-channel" value={String(channel)} disabled={!integration} onChange={(e) => changed(setChannel)(Number(e.currentTarget.value))}>
          <option value={String(TO_ME)}>Direct message to me</option>
          {channels.map((c) => (
            <option key={c.stream_id} value={String(c.stream_id)}>
              #{c.name}
            </option>
          ))}
        </select>
        <label class="check">
          <input type="checkbox" checked={oneTopic && toChannel} disabled={!toChannel} onChange={(e) => changed(setOneTopic)(e.currentTarget.checked)} /> Send all notifications to a single topic
        </label>
        {oneTopic && toChannel && (
          <>
            <label for="integration-topic">Topic</label>
            <input id="integration-topic" type="text" value={topic} maxLength={Number(model.realm.max_topic_length ?? 60)} onInput={(e) => changed(setTopic)(e.currentTarget.value)} />
          </>
        )}
        <p class="integration-url-header">URL for your integration</p>
        <p class="integration-url">
          <code aria-label="URL for your integration">{url ?? 'Integration URL will appear here.'}</code>
        </p>
        <div class="group-actions">
          <button
            type="button"
            class="btn primary"
            disabled={!ready}
            onClick={() => void req.run(async () => {
              await navigator.clipboard.writeText(url!);
              setCopied(true);
            })}
          >
            {copied ? 'Copied' : 'Copy URL'}
          </button>
          <button type="button" class="btn" onClick={onClose}>
            Close
          </button>
        </div>
        <ErrorLine error={req.error} />
      </div>
    </Dialog>
  );
}
