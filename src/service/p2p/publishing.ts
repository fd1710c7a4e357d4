/**
 * Publishing P2P listings: every item of one request in one unit of work, each checked against the
 * seller's inventory as the platform shows it now, and put in the public catalogue under the
 * listing's id. Items are answered one by one (a batch never stops at a failed item).
 */
import { APP_IDS, centsToUsd, usdToCents } from '../../contract/common.js';
import type { Listing } from '../../contract/listing.js';
import type { P2PPublishItem } from '../../contract/p2p.js';
import { randomId } from '../core/api-keys.js';
import type { Account } from '../core/caller.js';
import { type Refusal, refuseOnly } from '../core/refuse.js';
import type { UnitOfWork, UnitOfWorkRunner } from '../core/unit-of-work.js';
import { commissionCents, floorCents } from './commission.js';
import { assetIdOf, describeEnd, hasEnded, type ListingRecord } from './listing-record.js';
import type { ListingStore } from './listing-store.js';
import type { Proof, SellerPlatform, Shelf } from './ports.js';
import type { KeyedItem, PublishKeys } from './publish-keys.js';

/** What publishing may refuse with, a whole request or one item (POST /p2p/listings documents these). */
export const PUBLISH_ERRORS = [
  'not_found',
  'invalid_request',
  'unsupported_item',
  'steam_account_required',
  'idempotency_in_progress',
  'idempotency_key_mismatch',
  'asset_revision_changed',
  'already_listed',
  'inventory_pending',
  'inventory_blocked',
  'price_below_market',
] as const;

/** A code publishing refuses with. */
export type PublishRefusal = (typeof PUBLISH_ERRORS)[number];

const refuse = refuseOnly(PUBLISH_ERRORS);

/** P2P is CS2 only. */
const CS2 = APP_IDS.cs2;

/** One item's answer: the listing (201 new, 200 replayed) or the refusal it would have answered alone. */
export type ItemOutcome =
  | { ok: true; status: 200 | 201; replayed: boolean; listing: ListingRecord }
  | { ok: false; error: Refusal<PublishRefusal> };

/** What publishing uses. */
export interface PublishingDeps {
  units: UnitOfWorkRunner;
  store: ListingStore;
  keys: PublishKeys;
  platform: SellerPlatform;
  shelf: Shelf;
}

/** Publishes items for a seller under an Idempotency-Key. */
export class Publishing {
  constructor(private readonly deps: PublishingDeps) {}

  /** Publishes the items (distinct operational asset ids) in one unit of work; one outcome per item, in order. */
  async publish(account: Account, key: string, items: readonly P2PPublishItem[]): Promise<ItemOutcome[]> {
    const steamId = account.steamId;
    if (steamId === null)
      throw refuse('steam_account_required', 'link a platform account on the profile page to sell from it');
    const ops = items.map((i) => i.operational_asset_id);
    const repeated = ops.find((op, i) => ops.indexOf(op) !== i);
    if (repeated !== undefined)
      throw refuse('invalid_request', `items: operational_asset_id ${repeated} appears twice in one batch`);
    if (!this.deps.keys.begin(account.id, key))
      throw refuse('idempotency_in_progress', 'a request with this Idempotency-Key is still running');
    try {
      return await this.deps.units.run(async (uow) => {
        const keyed = await this.deps.keys.itemsIn(uow, account.id, key);
        const run = new PublishRun(this.deps, uow, account, steamId, key);
        const outcomes: ItemOutcome[] = [];
        for (const item of items) outcomes.push(await run.item(item, keyed.get(item.operational_asset_id)));
        return outcomes;
      });
    } finally {
      this.deps.keys.end(account.id, key);
    }
  }
}

/** One request's items inside its unit of work; the inventory proof is read once, when first needed. */
class PublishRun {
  private proof: Proof | null = null;

  constructor(
    private readonly deps: PublishingDeps,
    private readonly uow: UnitOfWork,
    private readonly account: Account,
    private readonly steamId: string,
    private readonly key: string,
  ) {}

  async item(item: P2PPublishItem, keyed: KeyedItem | undefined): Promise<ItemOutcome> {
    const priceCents = usdToCents(item.price_usd);
    if (keyed) return this.replay(item, priceCents, keyed);
    const refusal = await this.check(item, priceCents);
    // A refusal wrote nothing, so it records nothing either: the key stays free for the item.
    if ('error' in refusal) return { ok: false, error: refusal.error };
    const listing = await this.create(item, priceCents, refusal.copy);
    await this.record(item, priceCents, listing.id);
    return { ok: true, status: 201, replayed: false, listing };
  }

  private async replay(item: P2PPublishItem, priceCents: number, keyed: KeyedItem): Promise<ItemOutcome> {
    if (keyed.assetRevision !== item.asset_revision || keyed.priceCents !== priceCents)
      return fail(
        'idempotency_key_mismatch',
        `this Idempotency-Key was used for ${item.operational_asset_id} with another price or revision; use a new key`,
      );
    const listing = await this.deps.store.getIn(this.uow, keyed.listingId);
    if (!listing) throw new Error(`P2P listing ${keyed.listingId} of a publish key is missing`);
    // The key still names the listing, so it never lists the copy twice; but the listing is gone.
    if (hasEnded(listing))
      return fail('not_found', `${describeEnd(listing)}; publish the copy again with a new Idempotency-Key`);
    return { ok: true, status: 200, replayed: true, listing };
  }

  /** The copy to publish, or the refusal the item answers. */
  private async check(
    item: P2PPublishItem,
    priceCents: number,
  ): Promise<
    { copy: { assetId: string; name: string; listingJson: string } } | { error: Refusal<PublishRefusal> }
  > {
    this.proof ??= await this.deps.platform.proofIn(this.uow, this.steamId);
    if (this.proof.status === 'pending')
      return refusal(
        'inventory_pending',
        'the platform is still reading your inventory; call again shortly',
        {
          retry_after_ms: this.proof.retryAfterMs,
        },
      );
    if (this.proof.status === 'blocked')
      return refusal('inventory_blocked', `your inventory cannot be read: ${this.proof.code}`, {
        proof_code: this.proof.code,
      });
    const parsed = assetIdOf(item.operational_asset_id);
    const copy = parsed && (await this.deps.platform.copyIn(this.uow, this.steamId, parsed.assetId));
    if (!copy || copy.appId !== parsed?.appId)
      return refusal(
        'not_found',
        `no copy ${item.operational_asset_id} in your inventory; read GET /p2p/inventory`,
      );
    if (copy.appId !== CS2)
      return refusal('unsupported_item', 'P2P lists CS2 items only', {
        unsupported_ids: [item.operational_asset_id],
      });
    if (copy.revision !== item.asset_revision)
      return refusal(
        'asset_revision_changed',
        'the copy changed since the inventory was read; read it again',
      );
    const live = await this.deps.store.liveByAssetIn(this.uow, copy.assetId);
    if (live)
      return refusal('already_listed', `the copy is already listed as ${live.id}`, { listing_id: live.id });
    const belowMarket = belowMarketRefusal(this.deps.shelf, copy.marketHashName, priceCents);
    if (belowMarket) return { error: belowMarket };
    return { copy: { assetId: copy.assetId, name: copy.marketHashName, listingJson: copy.listingJson } };
  }

  private async create(
    item: P2PPublishItem,
    priceCents: number,
    copy: { assetId: string; name: string; listingJson: string },
  ): Promise<ListingRecord> {
    const now = this.uow.now;
    const id = `p2p_${randomId(16)}`;
    const listing: Listing = {
      ...(JSON.parse(copy.listingJson) as Listing),
      id,
      price_usd: centsToUsd(priceCents),
      tradable: true,
      tradable_at: null,
      delivery: 'up_to_12h',
      listed_at: new Date(now).toISOString(),
      source: 'p2p',
      api_purchasable: true,
    };
    const record: ListingRecord = {
      id,
      seq: this.deps.store.takeSeq(),
      accountId: this.account.id,
      steamId: this.steamId,
      assetId: copy.assetId,
      assetRevision: item.asset_revision,
      marketHashName: copy.name,
      listingJson: JSON.stringify(listing),
      status: 'active',
      priceCents,
      commissionCents: commissionCents(priceCents),
      needsResync: false,
      orderId: null,
      itemKey: null,
      buyerSteamId: null,
      offerId: null,
      due: null,
      endReason: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.store.insert(this.uow, record);
    await this.deps.shelf.applyIn(this.uow, [{ kind: 'add', appId: CS2, listing }]);
    return record;
  }

  private record(item: P2PPublishItem, priceCents: number, listingId: string): Promise<void> {
    const keyed = {
      operationalAssetId: item.operational_asset_id,
      assetRevision: item.asset_revision,
      priceCents,
      listingId,
    };
    return this.deps.keys.record(this.uow, this.account.id, this.key, keyed);
  }
}

/** The `price_below_market` refusal of a price under half the item's market price, or null (none without a market price). */
export function belowMarketRefusal(
  shelf: Shelf,
  marketHashName: string,
  priceCents: number,
): Refusal<'price_below_market'> | null {
  const market = shelf.marketCents(CS2, marketHashName);
  if (market === null || priceCents >= floorCents(market)) return null;
  return refuse('price_below_market', 'price_usd is under half the market price', {
    market_usd: centsToUsd(market),
    floor_usd: centsToUsd(floorCents(market)),
  });
}

function refusal(code: PublishRefusal, message: string, facts: Record<string, unknown> = {}) {
  return { error: refuse(code, message, facts) };
}

function fail(code: PublishRefusal, message: string): ItemOutcome {
  return { ok: false, error: refuse(code, message) };
}
