/**
 * The bulk CS2 price snapshot: the price list's rows as gzip NDJSON, rebuilt with the list and
 * cached, never made per request. Its strong ETag is a hash of the uncompressed rows, so it
 * changes exactly when the content does; the build time travels in a header, not in the rows.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { PriceGroup } from './price-list.js';

const gzipAsync = promisify(gzip);

/** One built snapshot. */
export interface SnapshotFile {
  body: Buffer;
  etag: string;
  /** When the content last changed (epoch ms). */
  changedAt: number;
  /** When the snapshot was last built (epoch ms). */
  generatedAt: number;
  rows: number;
}

/** Holds the current snapshot. */
export class PriceSnapshot {
  private current: SnapshotFile | null = null;

  /** The current snapshot, or null before the first build. */
  get file(): SnapshotFile | null {
    return this.current;
  }

  /** Rebuilds from the CS2 price rows; compresses off the event loop, keeps the old file when nothing changed. */
  async update(build: { generatedAt: number; cs2: readonly PriceGroup[] }): Promise<void> {
    const ndjson = build.cs2.map((g) => `${JSON.stringify(g.row)}\n`).join('');
    const etag = `"${createHash('sha256').update(ndjson).digest('base64url')}"`;
    if (this.current?.etag === etag) {
      this.current = { ...this.current, generatedAt: build.generatedAt };
      return;
    }
    const body = await gzipAsync(ndjson);
    this.current = {
      body,
      etag,
      changedAt: build.generatedAt,
      generatedAt: build.generatedAt,
      rows: build.cs2.length,
    };
  }
}
