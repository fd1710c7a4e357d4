/**
 * Reads everything a report shows from the warehouse, in one transaction (one consistent state):
 * the freshness of each source, and per chart its rows, or what is missing when there are none.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { inTransaction } from '../../shared/transaction.js';
import { jsonSafeConverter } from '../json-values.js';
import type { Warehouse } from '../warehouse.js';
import { netFlowQuery, orderOutcomesQuery } from './account-sections.js';
import {
  floatQuery,
  fxQuery,
  type MarketOptions,
  minAskQuery,
  type PriceGroup,
  type SectionQuery,
  stickerQuery,
  timestampSql,
  topGroupSql,
} from './market-sections.js';
import type { ReportWindow } from './report-window.js';

/** A row as the report holds it: numbers, ISO 8601 UTC times, text. */
export type Row = Record<string, unknown>;

/** The charts of a report, in the order they are shown. */
export const CHART_IDS = ['minask', 'float', 'stickers', 'fx', 'net-flow', 'order-outcomes'] as const;
export type ChartId = (typeof CHART_IDS)[number];

/** One chart's data. */
export interface SectionData {
  id: ChartId;
  /** The query that made `rows`, over the models it names. */
  sql: string;
  models: string[];
  rows: Row[];
  /** Why there is nothing to draw (a model missing, or no rows yet); null when `rows` has some. */
  missing: string | null;
}

/** When each collector source last landed a batch. */
export interface Freshness {
  source: string;
  last_landed_at: string;
  rows: number;
}

/** A span of the window in which nothing landed: the collector was down (ISO 8601 UTC ends). */
export interface CollectionGap {
  from_t: string;
  to_t: string;
}

/** Silence between two loads longer than this is a gap: the snapshot alone lands every minute. */
const GAP_MINUTES = 3;

/** Everything a report shows. */
export interface ReportData {
  window: ReportWindow;
  freshness: Freshness[];
  /** Where nothing was collected, for the charts to shade. */
  gaps: CollectionGap[];
  sections: SectionData[];
}

/** The queries of each chart, and what to say when one has no rows. */
function sectionsOf(
  options: MarketOptions,
  top: PriceGroup | null,
): Record<ChartId, { query: SectionQuery; empty: string }> {
  const w = options.window;
  return {
    minask: {
      query: minAskQuery(options),
      empty: `no price list priced an item in the window yet (the collector lands the snapshot every minute and the /prices lists every 5 minutes; the models are rebuilt every minute)`,
    },
    float: {
      query: floatQuery(),
      empty: 'no live CS2 listing with a float has landed yet',
    },
    stickers: {
      query: stickerQuery(),
      empty:
        'no sticker has a premium yet: it needs 3 live listings carrying it of an item and wear that also has listings without stickers',
    },
    fx: {
      query: fxQuery(options, top),
      empty: `no FX rate in force for the prices of the window yet (the collector reads /currency every 5 minutes)`,
    },
    'net-flow': { query: netFlowQuery(w), empty: 'no account day in the window' },
    'order-outcomes': { query: orderOutcomesQuery(w), empty: 'no order placed in the window' },
  };
}

/** Reads the report's data from `warehouse` as of one snapshot. */
export function readReport(warehouse: Warehouse, options: MarketOptions): Promise<ReportData> {
  return warehouse.withConnection((connection) =>
    // The transaction only reads: every chart sees the same state of the warehouse.
    inTransaction(connection, async () => {
      const columns = await tableColumns(connection);
      const freshness = (await rowsOf(
        connection,
        `SELECT source, max(started_at) AS last_landed_at, CAST(sum(rows) AS BIGINT) AS rows
         FROM loads GROUP BY source ORDER BY source`,
      )) as unknown as Freshness[];
      const gaps = (await rowsOf(connection, gapsSql(options.window))) as unknown as CollectionGap[];
      const minAsk = minAskQuery(options);
      const top = whatIsMissing(minAsk, columns)
        ? null
        : (((await rowsOf(connection, topGroupSql(options)))[0] as PriceGroup | undefined) ?? null);
      const sections: SectionData[] = [];
      for (const [id, { query, empty }] of Object.entries(sectionsOf(options, top)) as [
        ChartId,
        { query: SectionQuery; empty: string },
      ][]) {
        const models = Object.keys(query.needs);
        const lacking = whatIsMissing(query, columns);
        const rows = lacking ? [] : await rowsOf(connection, query.sql);
        const missing = lacking ?? (rows.length === 0 ? empty : null);
        sections.push({ id, sql: query.sql, models, rows, missing });
      }
      return { window: options.window, freshness, gaps, sections };
    }),
  );
}

/** The silences between consecutive loads of the window longer than {@link GAP_MINUTES}. */
function gapsSql(window: ReportWindow): string {
  return `SELECT started_at AS from_t, next_at AS to_t FROM (
  SELECT started_at, lead(started_at) OVER (ORDER BY started_at) AS next_at FROM loads
  WHERE started_at BETWEEN ${timestampSql(window.fromMs)} AND ${timestampSql(window.toMs)}
)
WHERE next_at - started_at > INTERVAL ${GAP_MINUTES} MINUTE
ORDER BY from_t`;
}

/** The columns of every table and view of the warehouse, by name. */
async function tableColumns(connection: DuckDBConnection): Promise<Map<string, Set<string>>> {
  const rows = await rowsOf(
    connection,
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'main'",
  );
  const tables = new Map<string, Set<string>>();
  for (const { table_name, column_name } of rows) {
    const name = String(table_name);
    tables.set(name, (tables.get(name) ?? new Set()).add(String(column_name)));
  }
  return tables;
}

/** What a query needs that the warehouse lacks, said for people; null when it has everything. */
function whatIsMissing(query: SectionQuery, tables: Map<string, Set<string>>): string | null {
  const absent = Object.keys(query.needs).filter((model) => !tables.has(model));
  if (absent.length > 0)
    return `the model${absent.length > 1 ? 's' : ''} ${absent.join(', ')} ${absent.length > 1 ? 'are' : 'is'} not in this warehouse: ${
      absent.some((m) => m.startsWith('fct_account') || m.startsWith('fct_order'))
        ? 'the account side of the pipeline builds them once it lands account data'
        : 'the collector builds the models every minute (or run `market models run`)'
    }`;
  for (const [model, needed] of Object.entries(query.needs)) {
    const lacking = needed.filter((c) => !tables.get(model)?.has(c));
    if (lacking.length > 0) return `the model ${model} has no column ${lacking.join(', ')}`;
  }
  return null;
}

async function rowsOf(connection: DuckDBConnection, sql: string): Promise<Row[]> {
  const reader = await connection.runAndReadAll(sql);
  return reader.convertRowObjects(jsonSafeConverter) as Row[];
}
