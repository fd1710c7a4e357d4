/** What the simulated platform refuses, as domain errors, and how each becomes an API error. */
import { ApiError } from '../../contract/api-error.js';
import { DomainError } from '../core/domain-error.js';

/** Reasons the platform refuses something. */
export type PlatformRefusal =
  | 'unknown_offer'
  | 'offer_state'
  | 'invalid_behaviour'
  | 'unknown_asset'
  | 'unknown_item'
  | 'cannot_trade';

/** The refusal for an offer id the platform never issued. */
export function unknownOffer(offerId: string): DomainError<PlatformRefusal> {
  return new DomainError('unknown_offer', `no trade offer ${offerId}`, { offerId });
}

/** The refusal of a step the offer's state does not allow (accepting a declined offer, …). */
export function offerStateRefusal(state: string, event: string): DomainError<PlatformRefusal> {
  const hint = state === 'active' ? 'only an accepted offer can be rolled back' : `the offer is ${state}`;
  return new DomainError('offer_state', `cannot ${event} a trade offer that is ${state}: ${hint}`, {
    state,
    event,
  });
}

/** The refusal of a rollback after the trade protection of an accepted offer has ended. */
export function protectionOver(offerId: string, endedAt: number): DomainError<PlatformRefusal> {
  return new DomainError(
    'offer_state',
    `trade offer ${offerId} can no longer be rolled back: its trade protection ended at ${new Date(endedAt).toISOString()}`,
    { state: 'accepted', event: 'rollback' },
  );
}

/** The refusal for a copy that is not at home in the account's inventory. */
export function unknownAsset(steamId: string, assetId: string): DomainError<PlatformRefusal> {
  return new DomainError('unknown_asset', `no asset ${assetId} in the inventory of ${steamId}`, {
    steamId,
    assetId,
  });
}

/** The refusal to grant an item the catalogue does not know. */
export function unknownItem(name: string): DomainError<PlatformRefusal> {
  return new DomainError(
    'unknown_item',
    `market_hash_name: no item named ${JSON.stringify(name)} is listed in the catalogue; copy a name from GET /v1/listings`,
    { name },
  );
}

/** The refusal of a user offer the sender cannot send (a trade-banned account). */
export function cannotTrade(steamId: string, why: string): DomainError<PlatformRefusal> {
  return new DomainError('cannot_trade', `${steamId} cannot send trade offers: ${why}`, { steamId });
}

/** The refusal of a user behaviour the simulator cannot play. */
export function invalidBehaviour(message: string): DomainError<PlatformRefusal> {
  return new DomainError('invalid_behaviour', message);
}

/**
 * The API error of a platform refusal, or undefined for another feature's error: an unknown offer or
 * asset is `not_found`; a step the offer's state refuses, an unplayable behaviour, an unknown item
 * and a user who cannot trade are `invalid_request`.
 */
export function platformApiError(error: DomainError): ApiError | undefined {
  switch (error.reason as PlatformRefusal) {
    case 'unknown_offer':
    case 'unknown_asset':
      return new ApiError('not_found', error.message);
    case 'offer_state':
    case 'invalid_behaviour':
    case 'unknown_item':
    case 'cannot_trade':
      return new ApiError('invalid_request', error.message);
    default:
      return undefined;
  }
}
