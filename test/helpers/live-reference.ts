/**
 * The service's live set of one game followed change by change, so a warehouse's live set can be
 * compared with the service's at the stream position the warehouse has landed, while churn goes on.
 */
import type { RunningService } from '../../src/service/service.js';
import { askCollector } from './cli.js';

/** One logged change of the followed game. */
interface Change {
  position: number;
  kind: 'new' | 'gone';
  listingId: string;
  /** When this process saw it committed (epoch ms). */
  seenAt: number;
}

/** The service's live set of a game, at any log position since the reference began. */
export interface LiveReference {
  /** The ids live once the log reached `position`, sorted. */
  idsAt(position: number): string[];
  /** When the first change after `position` was committed (epoch ms), or undefined when none followed. */
  nextChangeAt(position: number): number | undefined;
  /** The log position of the newest change of the game (or of the start). */
  head(): number;
  stop(): void;
}

/**
 * Starts following `appId` on `service`. Call it while the churn is paused: the live set it starts
 * from is read page by page through the API with `key`.
 */
export async function followLiveSet(
  service: RunningService,
  appId: number,
  key: string,
): Promise<LiveReference> {
  const changes: Change[] = [];
  const stop = service.context.catalogue.onChange((applied) => {
    const seenAt = Date.now();
    for (const { event } of applied) {
      if (event.appId !== appId) continue;
      changes.push({ position: event.position, kind: event.kind, listingId: event.listingId, seenAt });
    }
  });
  const start = service.context.catalogue.log.head;
  const initial = await readLiveIds(service.baseUrl, appId, key);
  return {
    idsAt(position) {
      const live = new Set(initial);
      for (const c of changes) {
        if (c.position <= start || c.position > position) continue;
        if (c.kind === 'new') live.add(c.listingId);
        else live.delete(c.listingId);
      }
      return [...live].sort();
    },
    nextChangeAt: (position) => changes.find((c) => c.position > position)?.seenAt,
    head: () => changes.at(-1)?.position ?? start,
    stop,
  };
}

/** Every live listing id of `appId`, read through the API. */
async function readLiveIds(baseUrl: string, appId: number, key: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const response = await fetch(
      `${baseUrl}/listings?appId=${appId}&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      { headers: { authorization: `Bearer ${key}` } },
    );
    const page = (await response.json()) as { items: { id: string }[]; next_cursor: string | null };
    ids.push(...page.items.map((l) => l.id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

/** What a running collector's warehouse holds of a game: its landed stream position and live ids. */
export interface WarehouseLiveSet {
  /** Log position of the last stream event landed (-1 when none). */
  position: number;
  ids: string[];
  /** When the question was sent (epoch ms): what it answers is at least that fresh. */
  askedAt: number;
}

/** Asks the collector holding `warehousePath` for both in one statement; null when none answers. */
export async function askLiveSet(warehousePath: string, appId: number): Promise<WarehouseLiveSet | null> {
  const askedAt = Date.now();
  const [row] = await askCollector(
    warehousePath,
    `SELECT (SELECT value FROM collector_state WHERE source = 'stream' AND key = 'last_event_id') AS last,
            (SELECT coalesce(list(listing_id ORDER BY listing_id), []) FROM live_listings WHERE app_id = ${Number(appId)}) AS ids`,
  );
  if (!row) return null;
  const digits = /(\d+)$/.exec(String(row.last ?? ''))?.[1];
  const ids = (row.ids as string[]).map(String).sort();
  return { position: digits === undefined ? -1 : Number(digits), ids, askedAt };
}

/**
 * Whether the warehouse's live set is the service's at the position it landed, and that position
 * is no staler than `maxLagMs` when asked: every change older than that had landed.
 */
export function isFresh(reference: LiveReference, landed: WarehouseLiveSet, maxLagMs: number): boolean {
  const { lagMs, differ } = compareLiveSet(reference, landed);
  return lagMs <= maxLagMs && differ === 0;
}

/** How far the warehouse is from the service: its lag when asked, and the ids it differs by at its position. */
export function compareLiveSet(
  reference: LiveReference,
  landed: WarehouseLiveSet,
): { lagMs: number; differ: number } {
  const next = reference.nextChangeAt(landed.position);
  const lagMs = next === undefined ? 0 : Math.max(0, landed.askedAt - next);
  const expected = new Set(reference.idsAt(landed.position));
  const have = new Set(landed.ids);
  const differ =
    [...expected].filter((id) => !have.has(id)).length + [...have].filter((id) => !expected.has(id)).length;
  return { lagMs, differ };
}
