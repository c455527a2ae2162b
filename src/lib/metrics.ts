/**
 * Prometheus metrics (prom-client), one registry per server: HTTP requests
 * by route (count and latency), event queues and waiting long-polls,
 * messages sent, database query time, and the process's own metrics. They
 * are served on a separate listener (METRICS_PORT), never on the API port.
 */
import type { Counter, Histogram, Registry } from 'prom-client';
import { lazyModule } from './lazy.ts';

// Loaded only by a server with METRICS_PORT (createMetrics is called only then).
const promClient = lazyModule<typeof import('prom-client')>('prom-client');

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  messagesSent: Counter;
  dbDuration: Histogram;
}

export function createMetrics(sources: { queues: () => number; waitingPolls: () => number; renderQueue: () => number }): Metrics {
  const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } = promClient();
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'parley_' });
  const metrics: Metrics = {
    registry,
    httpRequests: new Counter({
      name: 'parley_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'parley_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method and route template (long-polls included).',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    messagesSent: new Counter({ name: 'parley_messages_sent_total', help: 'Messages sent.', registers: [registry] }),
    dbDuration: new Histogram({
      name: 'parley_db_query_duration_seconds',
      help: 'Time of each database query.',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
  };
  new Gauge({ name: 'parley_event_queues', help: 'Event queues open.', registers: [registry], collect() { this.set(sources.queues()); } });
  new Gauge({ name: 'parley_event_longpolls_waiting', help: 'GET /events long-polls waiting for events.', registers: [registry], collect() { this.set(sources.waitingPolls()); } });
  new Gauge({ name: 'parley_markdown_renders_queued', help: 'Message renders waiting for a worker thread.', registers: [registry], collect() { this.set(sources.renderQueue()); } });
  return metrics;
}
