/** The first fill of an empty catalogue: the seeder's listings bulk-loaded with the next sequence number. */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../shared/database.js';
import { type ListingRow, loadListingFile, rowJson } from './listing-rows.js';

/** The service_meta key of the next listing sequence number. */
export const NEXT_SEQUENCE = 'next_listing_sequence';

/** How the catalogue starts when its database is empty: the simulator's generated listings. */
export interface CatalogueSeeder {
  /** The listings of a new catalogue, generated lazily. */
  rows(): Iterable<ListingRow>;
  /** The sequence number the first listing added after them takes. */
  nextSequence: number;
}

/**
 * Streams the generated catalogue to a temporary NDJSON file and bulk-loads it with read_json,
 * with the next sequence number in the same transaction. Returns that number.
 */
export async function seedCatalogue(db: Database, seeder: CatalogueSeeder): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'market-seed-'));
  const file = join(dir, 'listings.ndjson');
  try {
    const out = createWriteStream(file);
    let buffered: string[] = [];
    let count = 0;
    for (const row of seeder.rows()) {
      count += 1;
      buffered.push(rowJson(row));
      if (buffered.length === 4096) {
        if (!out.write(`${buffered.join('\n')}\n`)) await once(out, 'drain');
        buffered = [];
      }
    }
    out.end(buffered.length > 0 ? `${buffered.join('\n')}\n` : '');
    await once(out, 'finish');
    await db.transaction(async (tx) => {
      if (count > 0) await loadListingFile(tx, file);
      await tx.run(`INSERT OR REPLACE INTO service_meta VALUES ('${NEXT_SEQUENCE}', $v)`, {
        v: String(seeder.nextSequence),
      });
    });
    return seeder.nextSequence;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
