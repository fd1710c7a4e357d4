/**
 * The inventory proof: whether the platform answers a full read of an account's inventory. A
 * private or trade-banned inventory is blocked with a code saying what the owner must fix; a
 * fresh inventory is pending for its first few seconds of service clock (the platform is still
 * loading it), then ready. Changing the inventory's visibility makes it fresh again.
 */
import type { UnitOfWork } from '../core/unit-of-work.js';

/** How the platform shows an account's inventory (set by the sandbox). */
export type InventoryVisibility = 'ready' | 'private' | 'trade_banned';

/** What a blocked proof tells the owner to fix. */
export type InventoryBlockCode = 'inventory_private' | 'trade_banned';

/** The outcome of a full inventory read; times in epoch ms on the service clock. */
export type InventoryProof =
  | { status: 'ready'; checkedAt: number }
  | { status: 'pending'; retryAfterMs: number }
  | { status: 'blocked'; code: InventoryBlockCode };

/** How long the first read of a fresh inventory stays pending. @default 5000 */
export const PROOF_PENDING_MS = 5_000;

const BLOCK_CODES: Record<Exclude<InventoryVisibility, 'ready'>, InventoryBlockCode> = {
  private: 'inventory_private',
  trade_banned: 'trade_banned',
};

interface StateRow {
  visibility: InventoryVisibility;
  started: number | null;
}

/** The platform_inventory_states table: every read and write in the caller's unit of work. */
export class InventoryStates {
  /** The visibility of an account's inventory; `ready` when never set. */
  async visibility(uow: UnitOfWork, steamId: string): Promise<InventoryVisibility> {
    return (await this.row(uow, steamId))?.visibility ?? 'ready';
  }

  /** Sets the visibility; the inventory is fresh again, so its next read starts pending. */
  async setVisibility(uow: UnitOfWork, steamId: string, visibility: InventoryVisibility): Promise<void> {
    await uow.tx.runPrepared(
      `INSERT INTO platform_inventory_states (steam_id, visibility, read_started_at, updated_at)
       VALUES ($steam_id, $visibility, NULL, make_timestamp($now * 1000))
       ON CONFLICT (steam_id) DO UPDATE SET visibility = excluded.visibility, read_started_at = NULL,
         updated_at = excluded.updated_at`,
      { steam_id: steamId, visibility, now: uow.now },
    );
  }

  /** A full read at `uow.now`: blocked, pending (the first read starts the clock), or ready. */
  async read(uow: UnitOfWork, steamId: string): Promise<InventoryProof> {
    const row = await this.row(uow, steamId);
    const visibility = row?.visibility ?? 'ready';
    if (visibility !== 'ready') return { status: 'blocked', code: BLOCK_CODES[visibility] };
    const started = row?.started ?? null;
    if (started === null) {
      await uow.tx.runPrepared(
        `INSERT INTO platform_inventory_states (steam_id, visibility, read_started_at, updated_at)
         VALUES ($steam_id, 'ready', make_timestamp($now * 1000), make_timestamp($now * 1000))
         ON CONFLICT (steam_id) DO UPDATE SET read_started_at = excluded.read_started_at`,
        { steam_id: steamId, now: uow.now },
      );
      return { status: 'pending', retryAfterMs: PROOF_PENDING_MS };
    }
    const readyAt = started + PROOF_PENDING_MS;
    if (uow.now < readyAt) return { status: 'pending', retryAfterMs: readyAt - uow.now };
    return { status: 'ready', checkedAt: uow.now };
  }

  private async row(uow: UnitOfWork, steamId: string): Promise<StateRow | undefined> {
    const rows = await uow.tx.all<{ visibility: InventoryVisibility; started_ms: bigint | number | null }>(
      `SELECT visibility, epoch_ms(read_started_at) AS started_ms FROM platform_inventory_states
       WHERE steam_id = $steam_id`,
      { steam_id: steamId },
    );
    const row = rows[0];
    if (!row) return undefined;
    return { visibility: row.visibility, started: row.started_ms === null ? null : Number(row.started_ms) };
  }
}
