/**
 * Every flag of the `market` commands, written once with its environment variable and default:
 * commander reads flags over `MARKET_*` variables over defaults (and shows both in `--help`); each
 * command validates what it gets with zod (see config.ts).
 */
import { Option } from 'commander';

/** A flag with a value, its environment variable (when it has one) and its default (when it has one). */
function option(flags: string, description: string, env?: string, fallback?: string): Option {
  const made = new Option(flags, description);
  if (env) made.env(env);
  if (fallback !== undefined) made.default(fallback);
  return made;
}

/** Options shared by several commands. */
export const shared = {
  warehouse: () =>
    option('--warehouse <path>', 'the warehouse DuckDB file', 'MARKET_WAREHOUSE', 'data/warehouse.duckdb'),
  warehouseMemory: () =>
    option(
      '--warehouse-memory <size>',
      "DuckDB's memory limit for the warehouse; raise it for long histories",
      'MARKET_WAREHOUSE_MEMORY',
      '1GB',
    ),
  db: () => option('--db <path>', 'service database file', 'MARKET_DB', 'data/market.duckdb'),
  port: () => option('--port <port>', 'port of the service; 0 picks a free one', 'MARKET_PORT', '8080'),
  listings: () =>
    option('--listings <n>', 'listings generated into a new database', 'MARKET_LISTINGS', '20000'),
  logLevel: (fallback: string) =>
    option(
      '--log-level <level>',
      'pino level of the JSON logs on stderr, or silent',
      'MARKET_LOG_LEVEL',
      fallback,
    ),
  logFormat: () =>
    option(
      '--log-format <format>',
      'auto (short lines on a terminal, JSON otherwise), json or text',
      'MARKET_LOG_FORMAT',
      'auto',
    ),
};

/** The options of `market serve`. */
export function serveOptions(): Option[] {
  return [
    option('--host <host>', 'address to listen on', 'MARKET_HOST', '127.0.0.1'),
    shared.port(),
    shared.db(),
    option('--seed <n>', 'seed of the generated catalogue', 'MARKET_SEED', '1'),
    shared.listings(),
    // A value, not a plain switch, so that MARKET_SANDBOX=0 means off.
    option(
      '--sandbox [on]',
      'enable the /sandbox operator endpoints (1/true or 0/false)',
      'MARKET_SANDBOX',
      'false',
    ),
    option(
      '--cors-origins <origins>',
      'comma-separated browser origins allowed to call the API (CORS)',
      'MARKET_CORS_ORIGINS',
      '',
    ),
    option(
      '--trust-proxy <cidrs>',
      'comma-separated proxies whose X-Forwarded-For is believed',
      'MARKET_TRUST_PROXY',
      '',
    ),
    option('--churn-rate <n>', 'listings appearing or leaving per second', 'MARKET_CHURN_RATE', '4'),
    new Option('--churn-paused', 'start with the market simulator paused').default(false),
    option(
      '--read-limit <n>',
      'standard requests per key and rolling minute; raise it for load tests',
      'MARKET_READ_LIMIT',
      '100',
    ),
    option(
      '--order-limit <n>',
      'POST /orders and /market/buy per key and rolling minute; raise it for load tests',
      'MARKET_ORDER_LIMIT',
      '250',
    ),
    option(
      '--log-retention-hours <n>',
      'hours of listing events kept for stream resume',
      'MARKET_LOG_RETENTION_HOURS',
      '24',
    ),
    option(
      '--log-max-rows <n>',
      'most listing events kept for stream resume',
      'MARKET_LOG_MAX_ROWS',
      '2000000',
    ),
    new Option(
      '--webhook-allow-loopback',
      'sandbox only: let webhook URLs on https://127.0.0.1 through (never in production)',
    ).default(false),
    option(
      '--webhook-ca <pem>',
      'sandbox only: PEM file of the CA trusted for loopback webhook receivers',
      'MARKET_WEBHOOK_CA',
    ),
    shared.logLevel('warn'),
  ];
}

/** The options of `market collect`. */
export function collectOptions(): Option[] {
  return [
    option('--base-url <url>', 'the API, ending in /v1', 'MARKET_BASE_URL'),
    option('--api-key <key>', 'an API key', 'MARKET_API_KEY'),
    shared.warehouse(),
    shared.warehouseMemory(),
    option('--games <ids>', 'comma-separated app ids', 'MARKET_GAMES', '730,570,252490'),
    option('--status-seconds <n>', 'seconds between status log lines on stderr; 0 for none', undefined, '30'),
    option('--snapshot-cron <expr>', 'cron schedule of the snapshot download', undefined, '* * * * *'),
    option('--poll-seconds <n>', 'between CS2 delta polls', undefined, '30'),
    option('--sweep-seconds <n>', 'between full sweeps of Dota 2 and Rust', undefined, '120'),
    option('--cs2-sweep-seconds <n>', 'between full sweeps of CS2', undefined, '600'),
    option('--prices-seconds <n>', 'between reads of the minAsk lists', undefined, '300'),
    option('--fx-seconds <n>', 'between reads of the FX rates', undefined, '300'),
    option(
      '--account-seconds <n>',
      "between reads of the key owner's ledger, orders, P2P listings and sell orders",
      undefined,
      '30',
    ),
    option('--no-account', "do not collect the key owner's own activity (the account source)"),
    option('--watchdog-seconds <n>', 'silence after which the stream is reconnected', undefined, '40'),
    option(
      '--read-budget <n>',
      'requests per rolling minute this collector allows itself on the key',
      undefined,
      '95',
    ),
    option(
      '--export-cron <expr>',
      'cron schedule (UTC) of parquet exports of the days since yesterday; none by default (market run: 0 * * * *)',
    ),
    option('--export-dir <path>', 'folder of the scheduled parquet exports', undefined, 'data/exports'),
    option(
      '--report-cron <expr>',
      'cron schedule (UTC) of market reports of the last 7 days; none by default (market run: 0 * * * *)',
    ),
    option('--report-dir <path>', 'folder of the scheduled reports', undefined, 'data/reports'),
    option(
      '--query-timeout <seconds>',
      'deadline of a query through the collector (market sql), unless the query asks for its own',
      undefined,
      '60',
    ),
    option(
      '--models-cron <expr>',
      'cron schedule (UTC) of the SQL model refresh, or off',
      undefined,
      '* * * * *',
    ),
    shared.logLevel('info'),
    shared.logFormat(),
  ];
}

/** The options of `market export`. */
export function exportOptions(): Option[] {
  return [
    option('--models <names>', 'comma-separated models; default every model with an export: line'),
    option('--to <path>', 'the export folder', undefined, 'data/exports'),
    option('--since <day>', 'first day to export, YYYY-MM-DD (UTC)'),
    option('--until <day>', 'last day to export, YYYY-MM-DD (UTC)'),
    shared.warehouse(),
    shared.warehouseMemory(),
    option('--models-dir <path>', 'folder of the SQL models, when no collector runs; default sql/models'),
  ];
}

/** The options of `market report`. */
export function reportOptions(): Option[] {
  return [
    option('--window <span>', 'how far back: minutes, hours or days, e.g. 90m, 24h, 7d', undefined, '7d'),
    option('--items <n>', 'lines of the minAsk chart (the most traded items)', undefined, '8'),
    option('--out <path>', 'the report folder', undefined, 'data/reports'),
    shared.warehouse(),
    shared.warehouseMemory(),
  ];
}
