/**
 * The service's Prometheus instruments (prom-client), for whoever operates it: requests by route
 * and status, the open listing streams, the event log's position, the webhook queue's depth and its
 * oldest due delivery, how far due work lags behind the service clock, and the process' default
 * metrics. Off unless `market serve --metrics-token` (or MARKET_METRICS_TOKEN) is given.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import { routeUrlOf } from '../../shared/error-handler.js';
import { registryWithProcessMetrics } from '../../shared/prometheus-registry.js';
import type { Clock } from '../core/clock.js';
import type { DueWork } from '../core/due-work.js';
import type { EventLog } from '../market/stream/event-log.js';
import type { StreamRegistry } from '../market/stream/stream-registry.js';
import type { DeliveryStore } from '../webhooks/delivery-store.js';

const PREFIX = 'market_service_';

/** What the instruments read at each scrape. */
export interface MeasuredParts {
  clock: Clock;
  streams: StreamRegistry;
  log: EventLog;
  deliveries: DeliveryStore;
  due: DueWork;
}

/** The service's registry, and the hook that counts requests. */
export class ServiceMetrics {
  readonly registry = registryWithProcessMetrics();
  private readonly requests: Counter<'route' | 'method' | 'status'>;

  constructor(parts: MeasuredParts) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: `${PREFIX}http_requests_total`,
      help: 'Requests answered, by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    gauge(registers, 'open_streams', 'Listing streams open now', () => {
      return Object.values(parts.streams.snapshot()).reduce((sum, n) => sum + n, 0);
    });
    gauge(
      registers,
      'event_log_position',
      'Position of the newest listing event in the log',
      () => parts.log.head,
    );
    gauge(registers, 'webhook_queue_depth', 'Webhook deliveries pending', () =>
      parts.deliveries.pendingCount(),
    );
    gauge(
      registers,
      'webhook_oldest_due_seconds',
      'Age of the earliest pending delivery attempt on the service clock (0 when none is due)',
      () => {
        const at = parts.deliveries.nextDueFrom(0);
        return at === null ? 0 : Math.max(0, (parts.clock.now() - at) / 1000);
      },
    );
    gauge(
      registers,
      'due_work_behind_seconds',
      'How far the earliest due work lies behind the service clock (0 when none is late)',
      async () => {
        const at = await parts.due.earliestDue();
        return at === null ? 0 : Math.max(0, (parts.clock.now() - at) / 1000);
      },
    );
  }

  /** Counts an answered request (a Fastify onResponse hook): by its route, or the route its path belongs to (a 405). */
  observe(request: FastifyRequest, reply: FastifyReply): void {
    const route = routeUrlOf(request) ?? 'unmatched';
    this.requests.inc({ route, method: request.method, status: String(reply.statusCode) });
  }
}

/** A gauge without labels read from `value` at each scrape. */
function gauge(
  registers: Registry[],
  name: string,
  help: string,
  value: () => number | Promise<number>,
): void {
  new Gauge({
    name: `${PREFIX}${name}`,
    help,
    registers,
    async collect() {
      this.set(await value());
    },
  });
}
