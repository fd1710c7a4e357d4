/**
 * The service clock kept with the database: how far the sandbox has moved it ahead of real time,
 * and the latest time it has shown. A service opened on the database starts no earlier than
 * either, so its "now" never moves back across restarts (rows stamped after a jump stay in the
 * past of every later row, and pollers reading by time miss nothing).
 */
import type { Database } from '../../shared/database.js';
import type { AdjustableClock } from './clock.js';
import type { UnitOfWorkRunner } from './unit-of-work.js';

const OFFSET_KEY = 'clock_offset_ms';
const SHOWN_KEY = 'clock_shown_ms';

/** Moves a freshly made clock forward to the stored offset and past the stored time (never back). */
export async function restoreClock(db: Pick<Database, 'read'>, clock: AdjustableClock): Promise<void> {
  const rows = await db.read<{ key: string; value: string }>(
    `SELECT key, value FROM service_meta WHERE key IN ('${OFFSET_KEY}', '${SHOWN_KEY}')`,
  );
  const stored = new Map(rows.map((r) => [r.key, Number(r.value)]));
  const offset = stored.get(OFFSET_KEY);
  if (offset !== undefined && offset > clock.offsetMs) clock.advance(offset - clock.offsetMs);
  const shown = stored.get(SHOWN_KEY);
  if (shown !== undefined && shown > clock.now()) clock.advance(shown - clock.now());
}

/**
 * Stores the clock's offset and its time now, each `aheadMs` further on (a move about to be made,
 * stored before it starts), in their own unit of work.
 */
export function saveClock(units: UnitOfWorkRunner, clock: AdjustableClock, aheadMs = 0): Promise<void> {
  return units.run(async (uow) => {
    const sql = 'INSERT OR REPLACE INTO service_meta VALUES ($key, $value)';
    const shown = Math.max(uow.now, clock.now()) + aheadMs;
    await uow.tx.runPrepared(sql, { key: OFFSET_KEY, value: String(clock.offsetMs + aheadMs) });
    await uow.tx.runPrepared(sql, { key: SHOWN_KEY, value: String(shown) });
  });
}
