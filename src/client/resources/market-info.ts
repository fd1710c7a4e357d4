/** The service's own state and reference data: health, the games a key may read, FX rates. */
import {
  type CurrencyResponse,
  currencyResponseSchema,
  type Game,
  gamesResponseSchema,
  type Health,
  healthSchema,
} from '../../contract/market.js';
import { checkOptionalObject } from '../check-arguments.js';
import type { RequestOptions } from '../client-options.js';
import type { Transport } from '../transport.js';

/** Health, games and currency over a shared {@link Transport}. */
export class MarketInfoResource {
  constructor(private readonly transport: Transport) {}

  /** `GET /health` (no key, outside the budget): status, price groups and price-list age. */
  health(): Promise<Health> {
    return this.transport.json({ path: '/health', schema: healthSchema, rate: 'none' });
  }

  /** `GET /games`: the games this key may read, CS2 first. */
  async games(): Promise<Game[]> {
    return (await this.transport.json({ path: '/games', schema: gamesResponseSchema })).games;
  }

  /** `GET /currency`: units of each currency per 1 USD. */
  currency(options: RequestOptions = {}): Promise<CurrencyResponse> {
    checkOptionalObject('info.currency', 'options', options);
    return this.transport.json({ path: '/currency', schema: currencyResponseSchema, ...options });
  }
}
