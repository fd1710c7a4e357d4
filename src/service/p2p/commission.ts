/** The service's P2P fee: a share of the price, taken from the seller's side. */

/** The commission rate in basis points: 5%. */
export const COMMISSION_BASIS_POINTS = 500;

/**
 * The commission on a price in cents: 5% rounded half up to the cent, at least 1 cent, so the
 * seller's payout (price minus commission) is always whole cents and below the price.
 * @example commissionCents(1000) // 50; commissionCents(10) // 1
 */
export function commissionCents(priceCents: number): number {
  return Math.max(1, Math.floor((priceCents * COMMISSION_BASIS_POINTS) / 10_000 + 0.5));
}

/** The lowest price accepted for an item with this market price: half of it, rounded up to the cent. */
export function floorCents(marketCents: number): number {
  return Math.ceil(marketCents / 2);
}
