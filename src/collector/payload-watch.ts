/**
 * What a source's landed payloads carry, as the warehouse counted it while landing them: rejected
 * and partly typed payloads, and fields the contract does not name. Each new field is logged once,
 * when it first lands (fields noticed before this process started are shown, not logged again).
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

  constructor(
    private readonly warehouse: Warehouse,
    private readonly board: StatusBoard,
    private readonly log: Logger | undefined,
    /** The keys the contract names for this source's payloads. @default the listing's */
    private readonly knownKeys: readonly string[] = LISTING_KEYS,
  ) {}

  /** Reads the counts once, silently, unless read already. */
  async ready(): Promise<void> {
    if (this.known === null) await this.refresh();
  }

  /** Reads the counts now (at start: silently). */
  async refresh(): Promise<void> {
    const source = this.board.status.name;
    const [checks] = await this.warehouse.query(
      `SELECT rejected, partly_typed FROM payload_checks WHERE source = '${source}'`,
    );
    const known = this.knownKeys.map((k) => `'${k}'`).join(', ');
    const rows = await this.warehouse.query(
      `SELECT field, first_seen_at, payloads FROM payload_fields
       WHERE source = '${source}' AND field NOT IN (${known}) ORDER BY first_seen_at, field`,
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
      this.refresh().catch((error: unknown) => this.board.error(error));
    }, REFRESH_MS);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
