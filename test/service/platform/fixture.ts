/** A platform on a fresh DuckDB file in a temp dir, with a clock the test moves by hand. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AdjustableClock, createClock } from '../../../src/service/core/clock.js';
import { UnitOfWorkRunner } from '../../../src/service/core/unit-of-work.js';
import type { OfferClosed, OfferItem } from '../../../src/service/platform/platform.js';
import { Platform } from '../../../src/service/platform/platform.js';
import { Database } from '../../../src/shared/database.js';
import { projectPath } from '../../../src/shared/project-root.js';

/** The service clock starts here in every platform test. */
export const START = Date.parse('2026-01-01T00:00:00.000Z');

/** A steam id that has never been given a behaviour. */
export const STEAM_ID = '76561197960265739';

/** What a platform test works with. */
export interface PlatformFixture {
  db: Database;
  units: UnitOfWorkRunner;
  clock: AdjustableClock;
  platform: Platform;
  /** Every offer that closed or was rolled back, in order, as the platform's listeners were told. */
  closed: OfferClosed[];
  /** Sends an offer of `count` items for `orderId` in its own unit of work. */
  send(orderId: string, steamId?: string, count?: number): Promise<{ offerId: string; sentAt: number }>;
  /** Moves the clock forward and runs what fell due. */
  advance(ms: number): Promise<void>;
  /** The committed state of an offer. */
  stateOf(steamId: string, offerId: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Items of one order, keyed `${orderId}:${position}`. */
export function itemsOf(orderId: string, count: number): OfferItem[] {
  return Array.from({ length: count }, (_, position) => ({
    itemKey: `${orderId}:${position}`,
    appId: 730,
    marketHashName: `AK-47 | Redline (Field-Tested) #${position}`,
    listingId: `lst_${orderId}_${position}`,
    listingJson: JSON.stringify({ id: `lst_${orderId}_${position}`, price_usd: 12.5 }),
  }));
}

/** Opens a platform on a new database file. */
export async function openPlatform(): Promise<PlatformFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'platform-test-'));
  const db = await Database.open(join(dir, 'service.duckdb'), projectPath('sql', 'service'));
  const clock = createClock({ start: START, realNow: () => 0 });
  const units = new UnitOfWorkRunner(db, () => clock.now());
  const platform = new Platform({ db, units, clock });
  await platform.load();
  const closed: OfferClosed[] = [];
  platform.onOfferClosed(async (_uow, event) => {
    closed.push(event);
  });
  return {
    db,
    units,
    clock,
    platform,
    closed,
    send: (orderId, steamId = STEAM_ID, count = 2) =>
      units.run((uow) => platform.sendOffer(uow, { orderId, steamId, items: itemsOf(orderId, count) })),
    async advance(ms) {
      clock.advance(ms);
      await platform.runDue(clock.now());
    },
    async stateOf(steamId, offerId) {
      return (await platform.offersOf(steamId)).find((offer) => offer.offer_id === offerId)?.state;
    },
    async close() {
      await units.drain();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
