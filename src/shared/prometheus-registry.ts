/** A Prometheus registry (prom-client) holding the process' default metrics, as `promtool` accepts them. */
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * prom-client's default gauges whose names end in `_total`, which `promtool check metrics` refuses;
 * the same figures stay per type in nodejs_active_handles, _requests and _resources.
 */
const NAMED_LIKE_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** A new registry with the process' default metrics (CPU, memory, event loop, GC, handles). */
export function registryWithProcessMetrics(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
  return registry;
}
