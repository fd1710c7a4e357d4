/** Converts DuckDB values to JSON-safe ones for ad hoc queries: numbers, ISO timestamps, plain objects. */
import {
  type DuckDBTimestampTZValue,
  type DuckDBTimestampValue,
  DuckDBTypeId,
  type DuckDBValueConverter,
  doubleFromDecimalValue,
  type Json,
  JsonDuckDBValueConverter,
} from '@duckdb/node-api';

/**
 * A converter like DuckDB's JSON one, except: integers of any width become numbers when they are
 * safe integers (strings otherwise), DECIMAL becomes a number (money has 2 decimals), and
 * TIMESTAMP / TIMESTAMPTZ become ISO 8601 UTC with milliseconds (`2026-11-21T12:00:00.000Z`).
 */
export const jsonSafeConverter: DuckDBValueConverter<Json> = (value, type, converter) => {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT: {
      const n = value as bigint;
      return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER)
        ? Number(n)
        : String(n);
    }
    case DuckDBTypeId.DECIMAL:
      return doubleFromDecimalValue(value);
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ: {
      const timestamp = value as DuckDBTimestampValue | DuckDBTimestampTZValue;
      const date = new Date(Number(timestamp.micros / 1000n));
      return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
    }
    default:
      return JsonDuckDBValueConverter(value, type, converter);
  }
};
