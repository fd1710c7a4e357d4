/**
 * The span a collector was not running, landed at its start as an ingest gap (`kind = 'down'`):
 * from its last committed batch to now. Nothing else could record it (a stopped daemon writes
 * nothing), and without it a candle over that span would look complete though nobody was looking.
 */
import type { BatchWriter, Warehouse } from '../../warehouse/index.js';

/** Lands the span since the warehouse's last batch as a closed gap of the `collector` source. */
export async function landDowntime(warehouse: Warehouse, writer: BatchWriter): Promise<void> {
  const [row] = await warehouse.query('SELECT epoch_ms(max(started_at)) AS last FROM loads');
  const last = row?.last === null || row?.last === undefined ? null : Number(row.last);
  const now = Date.now();
  if (last === null || last >= now) return;
  await writer.add({
    source: 'collector',
    gaps: [
      {
        kind: 'down',
        startedAt: last,
        endedAt: now,
        rows: 0,
        detail: 'the collector was not running: nothing was collected between its last batch and its start',
      },
    ],
  });
}
