/**
 * What a source's landed payloads carry, as the warehouse counted it while landing them: rejected
 * and partly typed payloads, and fields the contract does not name. Each new field is logged once,
 * when it first lands (fields noticed before this process started are shown, not logged again).
 * The counts are kept per kind of payload (`stream`, and the via of page items: `poll`, `sweep`,
 * `catch_up`); a board shows those of the kinds its source lands, summed.
 */
import type { Logger } from 'pino';
import { LISTING_KEYS, type Warehouse } from '../warehouse/index.js';
import type { NewField, StatusBoard } from './source-status.js';

/** Refreshes at most this often while writes land. */
const REFRESH_MS = 1000;

/** Keeps a source's board up to date with what its payloads carry. */
export class PayloadWatch {
  private known: Set<string> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private starting: Promise<void> | null = null;

  constructor(
    private readonly warehouse: Warehouse,
    private readonly board: StatusBoard,
    private readonly log: Logger | undefined,
    /** The keys the contract names for this source's payloads. @default the listing's */
    private readonly knownKeys: readonly string[] = LISTING_KEYS,
    /** The `payload_checks` sources the board shows, e.g. `['poll']`. @default the board's name */
    private readonly sources: readonly string[] = [board.status.name],
  ) {}

  /** Reads the counts once, silently, unless read already. */
  async ready(): Promise<void> {
    if (this.known === null) await this.refresh();
  }

  /**
   * Starts the first, silent read in the background, so a source's first requests do not wait for
   * it (they would queue behind other sources for the key's budget); {@link refresh} waits for it.
   */
  start(): void {
    this.starting = this.refresh().catch((error: unknown) => this.board.error(error));
  }

  /** Reads the counts now (at start: silently). */
  async refresh(): Promise<void> {
    const starting = this.starting;
    this.starting = null;
    if (starting) await starting;
    const source = this.board.status.name;
    const sources = this.sources.map((s) => `'${s}'`).join(', ');
    const [checks] = await this.warehouse.query(
      `SELECT sum(rejected) AS rejected, sum(partly_typed) AS partly_typed FROM payload_checks WHERE source IN (${sources})`,
    );
    const known = this.knownKeys.map((k) => `'${k}'`).join(', ');
    const rows = await this.warehouse.query(
      `SELECT field, min(first_seen_at) AS first_seen_at, sum(payloads) AS payloads FROM payload_fields
       WHERE source IN (${sources}) AND field NOT IN (${known}) GROUP BY field ORDER BY first_seen_at, field`,
    );
    const fields: NewField[] = rows.map((r) => ({
      field: String(r.field),
      firstSeenAt: String(r.first_seen_at),
      count: Number(r.payloads),
    }));
    const status = this.board.status;
    status.rejected = Number(checks?.rejected ?? 0);
    status.partlyTyped = Number(checks?.partly_typed ?? 0);
    status.newFields = fields;
    for (const f of fields) {
      if (this.known && !this.known.has(f.field))
        this.log?.warn(
          { source, field: f.field, firstSeenAt: f.firstSeenAt },
          'the upstream sends a new field',
        );
    }
    this.known = new Set(fields.map((f) => f.field));
  }

  /** Refreshes within a second, once, however many writes land meanwhile. */
  refreshSoon(): void {
    if (this.stopped) return;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.refreshUntilCounted().catch((error: unknown) => this.board.error(error));
    }, REFRESH_MS);
  }

  /**
   * Reads the counts, and again a second later while loads wait to be counted: the warehouse
   * counts after landing, and may leave a write for the next one's refresh (see `live-set.ts`).
   */
  private async refreshUntilCounted(): Promise<void> {
    await this.refresh();
    const [pending] = await this.warehouse.query('SELECT count(*) AS n FROM live_set_pending');
    if (Number(pending?.n ?? 0) > 0) this.refreshSoon();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
