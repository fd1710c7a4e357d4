/** The legend of `market status`, kept apart so that `--help` loads nothing else. */

/** What every figure of `market status` means (its `--help` ends with this). */
export const STATUS_LEGEND = `
Every figure counts from the collector's start. One line per source:
  connected      running (for the stream: connected to it); disconnected: reconnecting
  STOPPED (why)  stopped for good, e.g. a key that cannot read that feed
  ok|warn|error  freshness: the age of the last success against the source's warn and error
  age=Ns         ages (market collect --freshness); --check prints the sources not ok
  received=N     items the API sent: stream events and catch-up rows, listings of polls and
                 sweeps, minAsk and FX rows, ledger rows and account states, snapshots
  landed=N       rows committed to the warehouse. A sweep also lands a row for each listing it
                 no longer found (gone), so its landed can pass received; the account source
                 re-reads an overlap it landed already, so its received can pass landed; the
                 snapshot lands its lines and a row per fetch (as the report's rows landed)
  lag=Ns         the stream: between a listing appearing and its event arriving
  (first pass: page N of M)  a sweep's first full read of its game, which goes before
                 every other read; until it ends the live set lacks listings (M is about,
                 from the game's last minAsk list)
  last_error     the latest failure, also after the source recovered (retried by itself)
Warehouse work, whether scheduled or asked for with market models run / export / report:
  models built=N rows      rows of the models built by the refreshes
  export exported=N rows   rows written to parquet
  report drawn=N charts    charts drawn into reports
The lake (market lake move, market collect --lake-cron):
  lake days=N files=N bytes=N before=T   days, parquet files and bytes moved out of the
                 warehouse file; every row landed before T is in the lake
`;
