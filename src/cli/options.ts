/**
 * The flags of every `market` command, one table per command (see flags.ts): commander reads flags
 * over `MARKET_*` variables over defaults (and shows both in `--help`), the command parses what it
 * read with the same table. The collector's, the warehouse's and the service's defaults come from
 * themselves. One file of about 400 lines on purpose: it is the CLI's whole surface, read (and
 * reviewed) as one list.
 */
import { z } from 'zod';
import {
  COLLECTOR_DEFAULTS,
  type FreshnessRules,
  parseFreshnessRule,
} from '../collector/collector-options.js';
import { STATUS_DEADLINE_MS } from '../collector/control/protocol.js';
import { SERVICE_DEFAULTS } from '../service/service-options.js';
import { isDay, isWindow, WAREHOUSE_DEFAULTS } from '../warehouse/warehouse-options.js';
import { cron, cronOrOff, int, list, logFormat, logLevel, memorySize, onOff, secondsAsMs } from './config.js';
import { flag } from './flags.js';

/** Milliseconds as the seconds a flag's default shows. */
const seconds = (ms: number) => String(ms / 1000);

const { sources, work } = COLLECTOR_DEFAULTS;

/** The warehouse file and its memory limit, as every command that opens it takes them. */
const warehouseFlags = {
  warehouse: flag('--warehouse <path>', 'the warehouse DuckDB file', z.string().min(1), {
    env: 'MARKET_WAREHOUSE',
    fallback: COLLECTOR_DEFAULTS.warehouse.path,
  }),
  warehouseMemory: flag(
    '--warehouse-memory <size>',
    "DuckDB's memory limit for the warehouse; beyond it DuckDB drops cached blocks and spills to <file>.tmp; raise it for model builds over long histories",
    memorySize,
    { env: 'MARKET_WAREHOUSE_MEMORY', fallback: WAREHOUSE_DEFAULTS.memoryLimit },
  ),
};

/** The collector's memory limit: lower than a one-off command's, since a daemon keeps what the pool holds. */
const collectorMemory = flag(
  '--warehouse-memory <size>',
  "DuckDB's memory limit for the collector's warehouse (it lands on one thread; model builds and reads past 100 ms get two); a replay of 804,142 events with model builds filled 1GB to 954 MiB (the file's cached blocks, rows a build's transaction kept from a checkpoint; peak RSS 1,359 MiB), 512MB to its limit (peak RSS 828-944 MiB) by evicting and spilling the rest, and ran out at 256MB; with this default an incremental model built in full runs at 640MB for its length (DuckDB allocates beyond its pool then: a 90-day build peaked at 1,467 MiB at 1GB, 1,130 MiB at 640MB); a limit given holds for everything",
  memorySize,
  { env: 'MARKET_WAREHOUSE_MEMORY', fallback: COLLECTOR_DEFAULTS.warehouse.memoryLimit },
);

/** The analyst's models folder (`market models init` makes one), instead of the shipped `sql/models`. */
const modelsFolder = flag(
  '--models <dir>',
  'folder of the SQL models to build, test and export instead of the shipped sql/models (market models init <dir> makes one)',
  z.string().min(1).optional(),
  { env: 'MARKET_MODELS' },
);

/** The lake folder, as every command that opens the warehouse read-write takes it. */
const lakeDir = flag(
  '--lake <path>',
  'the lake folder, where days older than the hot window move (default: the one the warehouse last moved to, else lake/ beside the file)',
  z.string().min(1).optional(),
  { env: 'MARKET_LAKE' },
);

/** The lake's schedule on `market collect` and `market run`. */
const lakeFlags = {
  lakeDir,
  hotDays: flag(
    '--hot-days <n>',
    'whole days (UTC) before today a scheduled lake move keeps in the warehouse file',
    int(0, 100_000),
    { fallback: String(work.hotDays) },
  ),
  lakeCron: flag(
    '--lake-cron <expr>',
    'cron schedule (UTC) of moves of the days older than --hot-days into the lake, or off',
    cronOrOff('"0 3 * * *" (daily at 03:00)'),
    { fallback: work.lakeCron ?? 'off' },
  ),
};

/** The collector's control endpoint, fixed for a scraper (`market collect` and `market run`). */
const controlFlags = {
  controlPort: flag(
    '--control-port <port>',
    "port of the collector's control endpoint on 127.0.0.1 (market status, sql, GET /metrics); 0 picks a free one at every start",
    int(0, 65535),
    { env: 'MARKET_CONTROL_PORT', fallback: String(COLLECTOR_DEFAULTS.control.port) },
  ),
  metricsTokenFile: flag(
    '--metrics-token-file <path>',
    "file holding a token that the control endpoint's GET /metrics (and no other route) accepts besides the per-run one: a scrape credential that outlives restarts",
    z.string().min(1).optional(),
    { env: 'MARKET_METRICS_TOKEN_FILE' },
  ),
};

/** The price history endpoint of the collector (`market collect` and `market run`). */
const historyFlags = {
  historyPort: flag(
    '--history-port <port>',
    'port of the price history endpoint (GET /v1/history/…); 0 picks a free one; left out, none (market run: a free one)',
    int(0, 65535).optional(),
    { env: 'MARKET_HISTORY_PORT' },
  ),
  historyHost: flag(
    '--history-host <host>',
    'address the price history endpoint listens on',
    z.string().min(1),
    {
      env: 'MARKET_HISTORY_HOST',
      fallback: '127.0.0.1',
    },
  ),
  historyKeysFile: flag(
    '--history-keys-file <path>',
    'file of the keys of the price history endpoint, one per line, readable by its owner alone (market run: data/history-keys.txt, made with one key)',
    z.string().min(1).optional(),
    { env: 'MARKET_HISTORY_KEYS_FILE' },
  ),
  historyRate: flag(
    '--history-rate <requests>',
    'requests each key may make of the price history endpoint per rolling minute (then 429 with Retry-After)',
    int(1, 1_000_000),
    { env: 'MARKET_HISTORY_RATE', fallback: '120' },
  ),
  historyCorsOrigins: flag(
    '--history-cors-origins <origins>',
    'comma-separated browser origins allowed to read the price history (CORS)',
    list,
    { env: 'MARKET_HISTORY_CORS_ORIGINS', fallback: '' },
  ),
};

const db = flag('--db <path>', 'service database file', z.string().min(1), {
  env: 'MARKET_DB',
  fallback: SERVICE_DEFAULTS.dbPath,
});
const port = flag('--port <port>', 'port of the service; 0 picks a free one', int(0, 65535), {
  env: 'MARKET_PORT',
  fallback: String(SERVICE_DEFAULTS.port),
});
const listings = flag('--listings <n>', 'listings generated into a new database', int(0, 5_000_000), {
  env: 'MARKET_LISTINGS',
  fallback: String(SERVICE_DEFAULTS.listings),
});
const level = (fallback: string) =>
  flag('--log-level <level>', 'pino level of the JSON logs on stderr, or silent', logLevel, {
    env: 'MARKET_LOG_LEVEL',
    fallback,
  });
const format = flag(
  '--log-format <format>',
  'auto (short lines on a terminal, JSON otherwise), json or text',
  logFormat,
  { env: 'MARKET_LOG_FORMAT', fallback: 'auto' },
);

/** `market serve`. */
export const serveFlags = {
  host: flag('--host <host>', 'address to listen on', z.string(), {
    env: 'MARKET_HOST',
    fallback: SERVICE_DEFAULTS.host,
  }),
  port,
  db,
  seed: flag('--seed <n>', 'seed of the generated catalogue', int(0, 2 ** 31 - 1), {
    env: 'MARKET_SEED',
    fallback: String(SERVICE_DEFAULTS.seed),
  }),
  listings,
  // A value, not a plain switch, so that MARKET_SANDBOX=0 means off.
  sandbox: flag('--sandbox [on]', 'enable the /sandbox operator endpoints (1/true or 0/false)', onOff, {
    env: 'MARKET_SANDBOX',
    fallback: 'false',
  }),
  corsOrigins: flag(
    '--cors-origins <origins>',
    'comma-separated browser origins allowed to call the API (CORS)',
    list,
    { env: 'MARKET_CORS_ORIGINS', fallback: '' },
  ),
  trustProxy: flag(
    '--trust-proxy <cidrs>',
    'comma-separated proxies whose X-Forwarded-For is believed',
    list,
    {
      env: 'MARKET_TRUST_PROXY',
      fallback: '',
    },
  ),
  churnRate: flag(
    '--churn-rate <n>',
    'listings appearing or leaving per second',
    z.coerce.number().min(0).max(10_000),
    { env: 'MARKET_CHURN_RATE', fallback: String(SERVICE_DEFAULTS.churnRate) },
  ),
  churnPaused: flag('--churn-paused', 'start with the market simulator paused', onOff, { fallback: false }),
  readLimit: flag(
    '--read-limit <n>',
    'standard requests per key and rolling minute; raise it for load tests',
    int(1, 100_000_000),
    { env: 'MARKET_READ_LIMIT', fallback: '100' },
  ),
  orderLimit: flag(
    '--order-limit <n>',
    'POST /orders and /market/buy per key and rolling minute; raise it for load tests',
    int(1, 100_000_000),
    { env: 'MARKET_ORDER_LIMIT', fallback: '250' },
  ),
  logRetentionHours: flag(
    '--log-retention-hours <n>',
    'hours of listing events kept for stream resume',
    z.coerce
      .number()
      .positive()
      .max(24 * 365),
    { env: 'MARKET_LOG_RETENTION_HOURS', fallback: '24' },
  ),
  logMaxRows: flag(
    '--log-max-rows <n>',
    'most listing events kept for stream resume',
    int(1, 1_000_000_000),
    {
      env: 'MARKET_LOG_MAX_ROWS',
      fallback: '2000000',
    },
  ),
  webhookAllowLoopback: flag(
    '--webhook-allow-loopback',
    'sandbox only: let webhook URLs on https://127.0.0.1 through (never in production)',
    onOff,
    { fallback: false },
  ),
  metricsToken: flag(
    '--metrics-token <token>',
    'serve GET /metrics (Prometheus) to callers sending Authorization: Bearer <token>; off without it',
    z.string().min(16, 'the metrics token needs 16 characters or more').optional(),
    { env: 'MARKET_METRICS_TOKEN' },
  ),
  webhookCa: flag(
    '--webhook-ca <pem>',
    'sandbox only: PEM file of the CA trusted for loopback webhook receivers',
    z.string().min(1).optional(),
    { env: 'MARKET_WEBHOOK_CA' },
  ),
  logLevel: level('warn'),
};

const everyGame = sources.games.join(',');

/** `--freshness SOURCE=WARN/ERROR`, repeatable, as rules per source. */
const freshnessRules = z
  .array(z.string())
  .default([])
  .transform((texts, context): FreshnessRules => {
    try {
      return Object.fromEntries(texts.map(parseFreshnessRule));
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

/**
 * The collector's flags but the API's: what `market collect` and `market run` (whose collector
 * reads the service it starts) both take. Keys name the collector's options they fill
 * (`pollIntervalMs` is read from `--poll-seconds`), so the seconds of the flags arrive as milliseconds.
 */
export const collectorFlags = {
  ...warehouseFlags,
  warehouseMemory: collectorMemory,
  games: flag(
    '--games <ids>',
    'comma-separated app ids',
    z
      .string()
      .transform((v) => v.split(',').map((s) => Number(s.trim())))
      .pipe(z.array(z.number().int().positive()).min(1)),
    { env: 'MARKET_GAMES', fallback: everyGame },
  ),
  statusSeconds: flag(
    '--status-seconds <n>',
    'seconds between status log lines on stderr while nothing changes (a change is logged at once); 0 for none',
    z.coerce.number().min(0),
    { fallback: '300' },
  ),
  snapshotCron: flag(
    '--snapshot-cron <expr>',
    'cron schedule of the snapshot download',
    cron('"* * * * *"'),
    {
      fallback: sources.snapshotCron,
    },
  ),
  pollIntervalMs: flag('--poll-seconds <n>', 'between CS2 delta polls', secondsAsMs, {
    fallback: seconds(sources.pollIntervalMs),
  }),
  sweepIntervalMs: flag('--sweep-seconds <n>', 'between full sweeps of Dota 2 and Rust', secondsAsMs, {
    fallback: seconds(sources.sweepIntervalMs),
  }),
  cs2SweepIntervalMs: flag('--cs2-sweep-seconds <n>', 'between full sweeps of CS2', secondsAsMs, {
    fallback: seconds(sources.cs2SweepIntervalMs),
  }),
  pricesIntervalMs: flag('--prices-seconds <n>', 'between reads of the minAsk lists', secondsAsMs, {
    fallback: seconds(sources.pricesIntervalMs),
  }),
  fxIntervalMs: flag('--fx-seconds <n>', 'between reads of the FX rates', secondsAsMs, {
    fallback: seconds(sources.fxIntervalMs),
  }),
  accountIntervalMs: flag(
    '--account-seconds <n>',
    "between reads of the key owner's ledger, orders, P2P listings and sell orders",
    secondsAsMs,
    { fallback: seconds(sources.accountIntervalMs) },
  ),
  account: flag(
    '--no-account',
    "do not collect the key owner's own activity (the account source)",
    z.boolean().default(sources.account),
  ),
  watchdogMs: flag('--watchdog-seconds <n>', 'silence after which the stream is reconnected', secondsAsMs, {
    fallback: seconds(sources.watchdogMs),
  }),
  freshness: flag(
    '--freshness <SOURCE=WARN/ERROR...>',
    'ages in seconds past which a source (stream, poll, sweep, sweep:730, prices, fx, account, snapshot) is in warn and in error, e.g. stream=60/300; repeatable; the defaults fit each schedule',
    freshnessRules,
  ),
  readBudget: flag(
    '--read-budget <n>',
    'requests per rolling minute this collector allows itself on the key',
    z.coerce.number().int().positive(),
    { fallback: String(COLLECTOR_DEFAULTS.api.readBudget) },
  ),
  exportCron: flag(
    '--export-cron <expr>',
    'cron schedule (UTC) of parquet exports of the days since yesterday; none by default (market run: 0 * * * *)',
    cron('"0 * * * *" (hourly)').optional(),
  ),
  exportDir: flag('--export-dir <path>', 'folder of the scheduled parquet exports', z.string().min(1), {
    fallback: work.exportDir,
  }),
  reportCron: flag(
    '--report-cron <expr>',
    'cron schedule (UTC) of market reports of the last 7 days; none by default (market run: 0 * * * *)',
    cron('"0 * * * *" (hourly)').optional(),
  ),
  reportDir: flag('--report-dir <path>', 'folder of the scheduled reports', z.string().min(1), {
    fallback: work.reportDir,
  }),
  queryTimeoutMs: flag(
    '--query-timeout <seconds>',
    'deadline of a query through the collector (market sql), unless the query asks for its own',
    secondsAsMs,
    { fallback: seconds(work.queryTimeoutMs) },
  ),
  modelsCron: flag(
    '--models-cron <expr>',
    'cron schedule (UTC) of the SQL model refresh, or off',
    cronOrOff('"* * * * *"'),
    { fallback: work.modelsCron ?? 'off' },
  ),
  modelsDir: modelsFolder,
  ...lakeFlags,
  ...controlFlags,
  ...historyFlags,
  logLevel: level('info'),
  logFormat: format,
};

/** `market collect`: the API to collect, and the collector's flags. */
export const collectFlags = {
  baseUrl: flag(
    '--base-url <url>',
    'the API, ending in /v1',
    z.url({ message: 'give --base-url (or MARKET_BASE_URL), e.g. http://127.0.0.1:8080/v1' }),
    { env: 'MARKET_BASE_URL' },
  ),
  apiKey: flag(
    '--api-key <key>',
    'an API key',
    z
      .string({ message: 'give --api-key (or MARKET_API_KEY)' })
      .startsWith('svc_pub_', 'API keys start with svc_pub_'),
    { env: 'MARKET_API_KEY' },
  ),
  ...collectorFlags,
};

/** `market run`: the service's place, and every collector flag, with hourly exports and reports beside the warehouse. */
export const runFlags = {
  port,
  db,
  listings,
  ...collectorFlags,
  exportCron: flag(
    '--export-cron <expr>',
    'cron schedule (UTC) of parquet exports of the days since yesterday, or off',
    cronOrOff('"0 * * * *" (hourly)'),
    { fallback: '0 * * * *' },
  ),
  exportDir: flag(
    '--export-dir <path>',
    'folder of the scheduled parquet exports (default: exports/ beside the warehouse)',
    z.string().min(1).optional(),
  ),
  reportCron: flag(
    '--report-cron <expr>',
    'cron schedule (UTC) of market reports of the last 7 days, or off',
    cronOrOff('"0 * * * *" (hourly)'),
    { fallback: '0 * * * *' },
  ),
  reportDir: flag(
    '--report-dir <path>',
    'folder of the scheduled reports (default: reports/ beside the warehouse)',
    z.string().min(1).optional(),
  ),
};

/** `market status`. */
export const statusFlags = {
  warehouse: warehouseFlags.warehouse,
  json: flag('--json', 'print JSON', z.boolean().optional()),
  check: flag(
    '--check',
    'print one line per source not ok and exit 0 (all ok), 1 (a warn) or 2 (an error, no collector, or one not answering)',
    z.boolean().optional(),
  ),
  timeoutMs: flag(
    '--timeout <seconds>',
    'seconds to wait for the collector; past them it is not answering (hung or frozen): an error, exit 2',
    secondsAsMs,
    { fallback: seconds(STATUS_DEADLINE_MS) },
  ),
};

/** `market sql`. */
export const sqlFlags = {
  ...warehouseFlags,
  format: flag(
    '--format <format>',
    'table, csv or json',
    z.enum(['table', 'csv', 'json'], { message: '--format is table, csv or json' }),
    { fallback: 'table' },
  ),
  out: flag(
    '--out <file.parquet>',
    'write the rows to this parquet file instead of printing them',
    z
      .string()
      .refine((v) => v.endsWith('.parquet'), '--out writes parquet: give a file name ending in .parquet')
      .optional(),
  ),
  queryTimeoutMs: flag(
    '--query-timeout <seconds>',
    'interrupt the query after this long (default 60, or the collector’s)',
    z.coerce
      .number({ message: '--query-timeout is a number of seconds' })
      .positive('--query-timeout is a number of seconds above 0')
      .transform((s) => Math.round(s * 1000))
      .optional(),
  ),
};

const select = (help: string) => flag('--select <models>', help, list.optional());

/** The folder of the SQL models a command opening the file itself reads. */
/** `market models run`. */
export const modelsRunFlags = {
  ...warehouseFlags,
  modelsDir: modelsFolder,
  select: select('comma-separated models to build, with what they depend on'),
  fullRefresh: flag('--full-refresh', 'rebuild incremental models from scratch', z.boolean().optional()),
};

/** `market lake move`. */
export const lakeMoveFlags = {
  ...warehouseFlags,
  lakeDir,
  before: flag(
    '--before <time>',
    'move every row landed before this ISO 8601 time (UTC unless it gives an offset), e.g. 2026-11-20T00:00:00Z',
    z
      .string({ message: 'give --before <ISO 8601 time>' })
      .refine(
        (v) => /^\d{4}-\d\d-\d\d(T[\d:.]+(Z|[+-]\d\d:\d\d)?)?$/.test(v) && Number.isFinite(Date.parse(v)),
        {
          message: '--before is an ISO 8601 time, e.g. 2026-11-20T00:00:00Z',
        },
      )
      .transform((v) =>
        new Date(
          /T.*(Z|[+-]\d\d:\d\d)$/.test(v) ? v : `${v.includes('T') ? v : `${v}T00:00:00`}Z`,
        ).toISOString(),
      ),
  ),
};

/** `market models test`. */
export const modelsTestFlags = {
  ...warehouseFlags,
  modelsDir: modelsFolder,
  select: select('comma-separated models whose tests to run'),
};

const day = z.string().refine(isDay, 'give a day written YYYY-MM-DD, e.g. 2026-11-01');

/** `market export`. */
export const exportFlags = {
  models: flag(
    '--models <names>',
    'comma-separated models; default every model with an export: line',
    list.optional(),
  ),
  to: flag('--to <path>', 'the export folder', z.string().min(1), { fallback: work.exportDir }),
  since: flag('--since <day>', 'first day to export, YYYY-MM-DD (UTC)', day.optional()),
  until: flag('--until <day>', 'last day to export, YYYY-MM-DD (UTC)', day.optional()),
  ...warehouseFlags,
  // `--models` names the models exported here, so the folder keeps the longer name (same variable).
  modelsDir: flag(
    '--models-dir <dir>',
    'folder of the SQL models instead of the shipped sql/models (as --models <dir> of market models run)',
    z.string().min(1).optional(),
    { env: 'MARKET_MODELS' },
  ),
};

/** `market report`. */
export const reportFlags = {
  window: flag(
    '--window <span>',
    'how far back: minutes, hours or days, e.g. 90m, 24h, 7d',
    z.string().refine(isWindow, 'give minutes, hours or days, e.g. 7d, 24h or 90m'),
    { fallback: '7d' },
  ),
  items: flag('--items <n>', 'lines of the minAsk chart (the most traded items)', int(1, 50), {
    fallback: '8',
  }),
  out: flag('--out <path>', 'the report folder', z.string().min(1), { fallback: work.reportDir }),
  ...warehouseFlags,
};

/** `market keys list` and `market keys revoke`. */
export const keysFlags = { db };

/** `market keys create` (the allowlist and the balance are checked against the service's rules there). */
export const keysCreateFlags = {
  db,
  account: flag('--account <id>', 'add the key to this account', z.string().optional()),
  label: flag('--label <label>', 'label of the key', z.string(), { fallback: 'cli key' }),
  trading: flag('--trading', 'enable trading on the key', z.boolean().optional()),
  ipAllowlist: flag(
    '--ip-allowlist <cidrs>',
    'comma-separated CIDRs the key accepts requests from',
    z.string().optional(),
  ),
  balance: flag('--balance <usd>', 'opening balance of a new account', z.string(), { fallback: '0' }),
};

/** `market webhooks listen`. */
export const webhooksListenFlags = {
  baseUrl: flag(
    '--base-url <url>',
    'the API, ending in /v1',
    z.url({ message: 'give --base-url, e.g. http://127.0.0.1:8080/v1' }),
    { env: 'MARKET_BASE_URL', fallback: 'http://127.0.0.1:8080/v1' },
  ),
  apiKey: flag(
    '--api-key <key>',
    'a key of the account whose events to receive',
    z
      .string({ message: 'give --api-key (or MARKET_API_KEY): the key npm start printed' })
      .startsWith('svc_pub_', 'API keys start with svc_pub_'),
    { env: 'MARKET_API_KEY' },
  ),
  forwardTo: flag(
    '--forward-to <url>',
    'also POST each event (raw body and signature headers) to this URL',
    z.url({ message: 'give --forward-to as a URL, e.g. http://127.0.0.1:3000/hook' }).optional(),
  ),
  tlsDir: flag(
    '--tls-dir <path>',
    "folder of the receiver's certificate, which the service trusts",
    z.string().min(1),
    { env: 'MARKET_WEBHOOK_TLS', fallback: 'data/webhook-tls' },
  ),
  port: flag('--port <port>', 'port of the local receiver; 0 picks a free one', int(0, 65535), {
    fallback: '0',
  }),
};
