/**
 * The collector's public face: the daemon and what it reports. Its options and defaults, which
 * `--help` reads, are collector-options.ts (light to load); the control endpoint's protocol is
 * control/protocol.ts, and its work for a command without a daemon control/index.ts.
 */
export type {
  CollectorOptions,
  ControlEndpointOptions,
  HistoryEndpointOptions,
} from './collector-options.js';
export { type RunningCollector, startCollector } from './daemon.js';
export type { FreshnessState } from './freshness.js';
export type { SourceStatus } from './source-status.js';
