/** What the simulated platform refuses, as domain errors, and how each becomes an API error. */
import { ApiError } from '../../contract/api-error.js';
import { DomainError } from '../core/domain-error.js';

/** Reasons the platform refuses something. */
export type PlatformRefusal = 'unknown_offer' | 'offer_state' | 'invalid_behaviour';

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

/** The refusal of a user behaviour the simulator cannot play. */
export function invalidBehaviour(message: string): DomainError<PlatformRefusal> {
  return new DomainError('invalid_behaviour', message);
}

/**
 * The API error of a platform refusal, or undefined for another feature's error: an unknown offer is
 * `not_found`; a step the offer's state refuses and an unplayable behaviour are `invalid_request`.
 */
export function platformApiError(error: DomainError): ApiError | undefined {
  switch (error.reason as PlatformRefusal) {
    case 'unknown_offer':
      return new ApiError('not_found', error.message);
    case 'offer_state':
    case 'invalid_behaviour':
      return new ApiError('invalid_request', error.message);
    default:
      return undefined;
  }
}
