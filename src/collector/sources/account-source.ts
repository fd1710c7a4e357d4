/**
 * The key owner's own activity: the balance ledger (`GET /transactions`, newest-first pages re-read
 * from the watermark minus an overlap, deduplicated by id) and every state of its orders, P2P
 * listings and Instant Sell orders (the change feeds `updated_after`, oldest change first, each page
 * landed with its watermark). Rows and watermark land in one transaction, so a kill -9 loses
 * nothing and a restart re-reads only the overlap, which the warehouse lands once.
 *
 * It shares the key's read budget with the market sources through the client's queue; a run reads
 * at most `maxPages` pages per feed, so a busy account never holds the queue for long and the
 * sweeps and polls keep their turns (the stream does not count against the budget).
 *
 * Pages are read leniently and land raw: only ids and times are read here, for watermarks and
 * deduplication, so a row that breaks the contract or carries a new field lands like the others.
 */
import type { Logger } from 'pino';
import type { LenientMetaPage, MarketClient } from '../../client/index.js';
import { isApiError } from '../../contract/api-error.js';
import {
  ACCOUNT_KEYS,
  type AccountObjectKind,
  type AccountStateRow,
  type BatchWriter,
  type LedgerRow,
  type Warehouse,
} from '../../warehouse/index.js';
import { msToTimestamp } from '../../warehouse/landing/sql.js';
import { PayloadWatch } from '../payload-watch.js';
import type { SourceTask } from '../source-job.js';
import { StatusBoard } from '../source-status.js';
import { textOf, timeOf } from './lenient-values.js';

/** The overlap re-read below each watermark: writes may commit with a stamp earlier than one seen. */
export const ACCOUNT_OVERLAP_MS = 10_000;

const SOURCE = 'account';

/** One change feed: a kind of object, how to read a page of it, and how to name a row. */
interface Feed {
  key: string;
  kind: AccountObjectKind;
  appId: number | null;
  read(
    query: { updated_after: string; cursor?: string; limit: number },
    signal: AbortSignal,
  ): Promise<LenientMetaPage>;
  /** The key naming the object (`order_id` or `id`). */
  idKey: string;
}

/** Where the task lands its rows and reports them, and whose account they are. */
interface Landing {
  warehouse: Warehouse;
  writer: BatchWriter;
  board: StatusBoard;
  /** The key's account (`GET /balance`), landed with every row; undefined when the API does not say. */
  accountId?: string;
}

/** The key of a watermark in the source's state: one per account, so two keys' accounts never share one. */
function stateKey(accountId: string | undefined, key: string): string {
  return accountId === undefined ? key : `${accountId}/${key}`;
}

/** Creates the account task over the games the collector follows. */
export function createAccountTask(
  client: MarketClient,
  warehouse: Warehouse,
  writer: BatchWriter,
  options: { games: readonly number[]; intervalMs?: number; maxPages?: number; log?: Logger },
): SourceTask {
  const board = new StatusBoard(SOURCE);
  const watch = new PayloadWatch(warehouse, board, options.log, ACCOUNT_KEYS);
  const maxPages = options.maxPages ?? 10;
  const feeds: Feed[] = [
    ...options.games.map(
      (appId): Feed => ({
        key: `orders:${appId}`,
        kind: 'order',
        appId,
        read: (q, signal) => client.lenient.orders({ ...q, appId }, { signal }),
        idKey: 'order_id',
      }),
    ),
    {
      key: 'p2p_listings',
      kind: 'p2p_listing',
      appId: null,
      read: (q, signal) => client.lenient.p2pListings(q, { signal }),
      idKey: 'id',
    },
    {
      key: 'sell_orders',
      kind: 'sell_order',
      appId: null,
      read: (q, signal) => client.lenient.sellOrders(q, { signal }),
      idKey: 'id',
    },
  ];
  return {
    board,
    intervalMs: options.intervalMs ?? 30_000,
    async run(signal) {
      if (board.status.stopped) return 0;
      await watch.ready();
      const { account_id: accountId } = await client.account.balance({ signal });
      const landing: Landing = {
        warehouse,
        writer,
        board,
        ...(accountId === undefined ? {} : { accountId }),
      };
      const state = await warehouse.readState(SOURCE);
      const watermark = (key: string) => Number(state[stateKey(accountId, key)] ?? 0);
      // Rows are counted on the board as each write commits: a run stopped or failing after a
      // write keeps the count of what it landed, and the next run re-reads that as overlap.
      try {
        await landLedger(client, landing, watermark('ledger'), signal);
      } catch (error) {
        if (!refused(error)) throw error;
        board.status.stopped = `the key cannot read the account (${(error as Error).message})`;
        return 0;
      }
      for (const feed of feeds) {
        if (signal.aborted) break;
        try {
          await follow(feed, landing, watermark(feed.key), maxPages, signal);
        } catch (error) {
          // A key without P2P or Instant Sell access reads the rest; the refusal stays on the board.
          if (!refused(error)) throw error;
          board.error(error);
        }
      }
      await watch.refresh();
      return 0;
    },
  };
}

/**
 * Reads the ledger from the watermark minus the overlap (all of it the first time) and lands it
 * with the new watermark; counts the rows that were new (the overlap re-read is landed already).
 */
async function landLedger(
  client: MarketClient,
  { warehouse, writer, board, accountId }: Landing,
  watermark: number,
  signal: AbortSignal,
): Promise<void> {
  const from = watermark > 0 ? Math.floor((watermark - ACCOUNT_OVERLAP_MS) / 1000) : undefined;
  const rows: LedgerRow[] = [];
  let cursor: string | null = null;
  do {
    if (signal.aborted) return;
    const observedAt = Date.now();
    const page = await client.lenient.transactions(
      { limit: 100, ...(from === undefined ? {} : { from }), ...(cursor === null ? {} : { cursor }) },
      { signal },
    );
    for (const transaction of page.data)
      rows.push({ id: textOf(transaction, 'id'), transaction, observedAt });
    cursor = page.meta.next_cursor;
  } while (cursor !== null);
  // Newest-first pages end at the watermark only once all are read: the rows and the watermark land together.
  let next = watermark;
  for (const row of rows) next = Math.max(next, timeOf(textOf(row.transaction, 'created_at')) ?? next);
  board.status.received += rows.length;
  if (rows.length === 0) return;
  // The ids alone, from the landing tables: the typed view would parse every row landed.
  const landed = await landedIds(
    warehouse,
    'SELECT transaction_id AS k FROM raw_account_transactions__hot WHERE transaction_id IS NOT NULL',
  );
  const fresh = rows.filter((row) => row.id === null || !landed.has(row.id));
  await writer.add({
    source: SOURCE,
    ...(accountId === undefined ? {} : { accountId }),
    ledger: fresh,
    state: { [stateKey(accountId, 'ledger')]: String(next) },
  });
  board.status.landed += new Set(fresh.map((row) => row.id)).size;
}

/**
 * Follows one change feed from its watermark minus the overlap, each page landed with the
 * watermark it reaches; counts the states that were new (the overlap re-read lands as repeats).
 */
async function follow(
  feed: Feed,
  { warehouse, writer, board, accountId }: Landing,
  watermark: number,
  maxPages: number,
  signal: AbortSignal,
): Promise<void> {
  const since = Math.max(0, watermark - ACCOUNT_OVERLAP_MS);
  const updatedAfter = new Date(since).toISOString();
  // The last text landed of each state of this kind since the feed's lower bound, by object and
  // update instant: the warehouse lands a state again when its text differs from the last one
  // (a change within one instant), and counts it as a repeat when it does not.
  // From the landing tables' envelope: the typed view would parse every state landed.
  const known = new Map<string, string>();
  for (const row of await warehouse.query(
    `SELECT object_id || ' ' || epoch_ms(updated_at) AS k, arg_max(data, (ingested_at, observed_at)) AS d
     FROM raw_account_states__hot
     WHERE kind = '${feed.kind}' AND updated_at >= ${msToTimestamp(String(since))}
     GROUP BY k`,
  ))
    known.set(String(row.k), String(row.d));
  let cursor: string | null = null;
  for (let pages = 0; pages < maxPages && !signal.aborted; pages++) {
    const observedAt = Date.now();
    const page = await feed.read(
      { updated_after: updatedAfter, limit: 100, ...(cursor === null ? {} : { cursor }) },
      signal,
    );
    const rows: AccountStateRow[] = page.data.map((row) => ({
      kind: feed.kind,
      id: textOf(row, feed.idKey),
      appId: feed.appId,
      updatedAt: textOf(row, 'updated_at'),
      observedAt,
      body: row,
    }));
    for (const row of rows) watermark = Math.max(watermark, timeOf(row.updatedAt) ?? watermark);
    board.status.received += rows.length;
    // A row without an id or a time cannot be looked up here; the warehouse lands it once by its text.
    const keyOf = (row: AccountStateRow) => `${row.id} ${timeOf(row.updatedAt)}`;
    const fresh = rows.filter((row) => row.id === null || known.get(keyOf(row)) !== JSON.stringify(row.body));
    // Every state read lands: one read again is recorded as a repeat of the state stored.
    if (rows.length > 0)
      await writer.add({
        source: SOURCE,
        ...(accountId === undefined ? {} : { accountId }),
        accountStates: rows,
        state: { [stateKey(accountId, feed.key)]: String(watermark) },
      });
    for (const row of rows) known.set(keyOf(row), JSON.stringify(row.body));
    board.status.landed += fresh.length;
    cursor = page.meta.next_cursor;
    if (cursor === null) break;
  }
}

/** The keys (column `k`) of the landed rows a query selects. */
async function landedIds(warehouse: Warehouse, sql: string): Promise<Set<string>> {
  return new Set((await warehouse.query(sql)).map((row) => String(row.k)));
}

function refused(error: unknown): boolean {
  return isApiError(error) && error.status === 403;
}
