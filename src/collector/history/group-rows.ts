/**
 * The rows of `fct_minask_history` of one item group in a range of minutes, read from the two tables
 * behind that view rather than through it. The view joins every run of a group to its game's minutes
 * on the game alone and checks each pair against the run's bounds (10,080 minutes × 3,765 runs for a
 * week of the history bench's busiest group, 0.07 of the stats' 0.087 s); without the game's equality
 * DuckDB plans that range join well for one reader and as a piecewise merge join for another. Here
 * the group's runs that reach the range are read first (few), and each minute of the game in the
 * range finds the run it falls in by an ASOF join (the latest run started by then; a group's runs
 * do not overlap): both sides sorted once, whatever the planner would pick for the view.
 */
import { GROUP_FILTER } from './item-group.js';

/**
 * A SELECT of the group's rows of `fct_minask_history` (`minute`, `live_min_ask_usd`,
 * `live_listed_count`, `service_min_ask_usd`, `wear`) with `minute` in [`from`, `to`), two SQL expressions
 * (e.g. `$start::TIMESTAMP`), under {@link GROUP_FILTER}'s parameters. A left-out wear matches every
 * wear of the name: each wear's runs are matched apart, and `wear_rank` tells the wears apart.
 */
export function groupRowsSql(from: string, to: string): string {
  return `
  WITH runs AS (
    SELECT minute AS run_start, last_minute, wear, live_min_ask_usd, live_listed_count, service_min_ask_usd,
      dense_rank() OVER (ORDER BY wear) AS wear_rank
    FROM int_minask_spells
    -- A run ends within its UTC day (int_minask_spells' test): one reaching the range starts on
    -- its first day or later, which lets a range of the hot days skip the lake's files unopened.
    WHERE ${GROUP_FILTER} AND last_minute >= ${from} AND minute < ${to}
      AND minute >= CAST(CAST(${from} AS DATE) AS TIMESTAMP)
  ),
  minutes AS (
    SELECT m.minute, m.fetched, w.wear_rank
    FROM int_minask_minutes m, (SELECT DISTINCT wear_rank FROM runs) w
    WHERE m.app_id = $app_id AND m.minute >= ${from} AND m.minute < ${to}
  )
  SELECT m.minute, r.live_min_ask_usd, r.live_listed_count, r.service_min_ask_usd, m.wear_rank, r.wear
  FROM minutes m
  ASOF JOIN runs r ON r.wear_rank = m.wear_rank AND m.minute >= r.run_start
  WHERE m.minute <= r.last_minute AND (m.minute = r.run_start OR m.fetched)`;
}
