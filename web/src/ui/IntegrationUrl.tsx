import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { model } from '../model.ts';
import { Dialog } from './Dialog.tsx';
import { ErrorLine, useRequest } from './request.tsx';

/** A parameter of an integration's URL (register's url_options): a check box or a text field. */
interface UrlOption {
  key: string;
  label: string;
  validator: string;
}

/** An integration the server takes at /api/v1/external/<name> (register's realm_incoming_webhook_bots). */
interface Integration {
  name: string;
  display_name: string;
  /** The event types the URL can be limited to (only_events), or null. */
  all_event_types: string[] | null;
  url_options?: UrlOption[];
}

/** "Where to send notifications": a direct message to oneself. */
const TO_ME = -1;

/** Zulip's preset option of version-control integrations: which branches to notify about. */
const BRANCHES = 'branches';

/** The branches written in the field (comma-separated), trimmed, without empty ones. */
const branchList = (text: string): string[] =>
  text
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '');

/**
 * "Generate URL for an integration" (an incoming webhook bot's, as Zulip's):
 * the integration, where its notifications go (a channel one may post in,
 * or a direct message to oneself) and, for a channel, one topic for them all
 * if wanted; the integration's own URL options (which branches, check boxes,
 * text fields); for an integration with event types, the events to include
 * (only_events); the URL the third party is to call, with the bot's API key
 * (GET /bots/{id}/api_key), shown and copied.
 */
export function IntegrationUrl({ botId, onClose }: { botId: number; onClose(): void }) {
  const [apiKey, setApiKey] = useState<string | null>(null);
  const [integration, setIntegration] = useState('');
  const [channel, setChannel] = useState(TO_ME);
  const [oneTopic, setOneTopic] = useState(false);
  const [topic, setTopic] = useState('');
  const [filterEvents, setFilterEvents] = useState(false);
  const [events, setEvents] = useState<ReadonlySet<string>>(new Set());
  const [allBranches, setAllBranches] = useState(true);
  const [branches, setBranches] = useState('');
  const [options, setOptions] = useState<Record<string, string | boolean>>({});
  const [copied, setCopied] = useState(false);
  const req = useRequest();
  useEffect(() => {
    void req.run(async () => setApiKey((await api('GET', `/bots/${botId}/api_key`)).api_key as string));
  }, [botId]);
  const integrations = ((model.realm.realm_incoming_webhook_bots ?? []) as Integration[]).slice().sort((a, b) => a.display_name.localeCompare(b.display_name));
  const chosen = integrations.find((i) => i.name === integration);
  const eventTypes = (chosen?.all_event_types ?? []).slice().sort((a, b) => a.localeCompare(b));
  const urlOptions = (chosen?.url_options ?? []).filter((o) => o.key === BRANCHES || o.validator === 'check_bool' || o.validator === 'check_string');
  const channels = model.activeSubs().filter((c) => model.mayPostIn(c.stream_id));
  const toChannel = channel !== TO_ME;
  let url: string | null = null;
  if (apiKey !== null && integration) {
    const params = new URLSearchParams({ api_key: apiKey });
    if (toChannel) {
      params.set('stream', String(channel));
      if (oneTopic && topic.trim()) params.set('topic', topic.trim());
    }
    // The events in the order listed, as Zulip's.
    if (filterEvents && events.size > 0) params.set('only_events', JSON.stringify(eventTypes.filter((e) => events.has(e))));
    for (const o of urlOptions) {
      if (o.key === BRANCHES) {
        if (!allBranches && branchList(branches).length > 0) params.set(BRANCHES, branchList(branches).join(','));
      } else if (o.validator === 'check_bool') {
        if (options[o.key] === true) params.set(o.key, 'true');
      } else if (typeof options[o.key] === 'string' && options[o.key] !== '') params.set(o.key, String(options[o.key]));
    }
    const base = String(model.realm.realm_url ?? location.origin);
    url = `${base}/api/v1/external/${integration}?${params.toString()}`;
  }
  // (As Zulip's: no URL to copy while a single topic is asked for without one, or events are to be filtered and none is chosen.)
  const ready = url !== null && !(toChannel && oneTopic && !topic.trim()) && !(filterEvents && events.size === 0);
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
            // Another integration starts over, as Zulip's: a direct message, no topic, no filters or options.
            changed(setIntegration)(e.currentTarget.value);
            setChannel(TO_ME);
            setOneTopic(false);
            setTopic('');
            setFilterEvents(false);
            setEvents(new Set());
            setAllBranches(true);
            setBranches('');
            setOptions({});
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
        {urlOptions.map((o) =>
          o.key === BRANCHES ? (
            <div key={o.key}>
              <label class="check">
                <input
                  type="checkbox"
                  checked={allBranches}
                  onChange={(e) => {
                    const all = e.currentTarget.checked;
                    changed(setAllBranches)(all);
                    // As Zulip's: the choice of branches starts from "main".
                    if (!all && branchList(branches).length === 0) setBranches('main');
                  }}
                />{' '}
                Send notifications for all branches
              </label>
              {!allBranches && (
                <>
                  <label for="integration-branches">Which branches should notifications be sent for?</label>
                  <input id="integration-branches" type="text" value={branches} placeholder="main, release" onInput={(e) => changed(setBranches)(e.currentTarget.value)} />
                </>
              )}
            </div>
          ) : o.validator === 'check_bool' ? (
            <label key={o.key} class="check">
              <input type="checkbox" checked={options[o.key] === true} onChange={(e) => changed(setOptions)({ ...options, [o.key]: e.currentTarget.checked })} /> {o.label}
            </label>
          ) : (
            <div key={o.key}>
              <label for={`integration-option-${o.key}`}>{o.label}</label>
              <input id={`integration-option-${o.key}`} type="text" value={String(options[o.key] ?? '')} onInput={(e) => changed(setOptions)({ ...options, [o.key]: e.currentTarget.value })} />
            </div>
          ),
        )}
        {chosen?.all_event_types && (
          <label class="check">
            <input type="checkbox" checked={filterEvents} onChange={(e) => changed(setFilterEvents)(e.currentTarget.checked)} /> Filter events that will trigger notifications?
          </label>
        )}
        {chosen?.all_event_types && filterEvents && (
          <fieldset class="integration-events">
            <legend>Events to include:</legend>
            <div class="group-actions">
              <button type="button" class="btn" onClick={() => changed(setEvents)(new Set(eventTypes))}>
                Check all
              </button>
              <button type="button" class="btn" onClick={() => changed(setEvents)(new Set())}>
                Uncheck all
              </button>
            </div>
            <ul class="integration-event-list">
              {eventTypes.map((ev) => (
                <li key={ev}>
                  <label class="check">
                    <input
                      type="checkbox"
                      checked={events.has(ev)}
                      onChange={(e) => {
                        const next = new Set(events);
                        if (e.currentTarget.checked) next.add(ev);
                        else next.delete(ev);
                        changed(setEvents)(next);
                      }}
                    />{' '}
                    {ev}
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
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
