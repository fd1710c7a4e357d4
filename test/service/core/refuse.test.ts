/** The one refusal path: `refuse` makes the contract's error, `refuseOnly` keeps a module to the codes it documents. */
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../../src/contract/api-error.js';
import { ERROR_CODES, ERROR_TABLE } from '../../../src/contract/errors.js';
import { refuse, refuseOnly } from '../../../src/service/core/refuse.js';
import { BUY_ERRORS } from '../../../src/service/trading/trading.js';

describe('refuse', () => {
  it.each(ERROR_CODES)('answers %s with the status of the error table', (code) => {
    const error = refuse(code, 'why');
    expect(isApiError(error)).toBe(true);
    expect([error.code, error.status, error.detail]).toEqual([code, ERROR_TABLE[code].status, 'why']);
  });

  it('puts the facts in the body beside code and detail', () => {
    const error = refuse('item_unavailable', 'a listing was sold', { unavailable_ids: ['c1'] });
    expect(error.toBody()).toEqual({
      code: 'item_unavailable',
      detail: 'a listing was sold',
      unavailable_ids: ['c1'],
    });
    expect(error.headers).toEqual({});
  });

  it('sends retry_after_seconds as Retry-After for a code the table marks so', () => {
    const error = refuse('concurrent_update', 'retry in a second', { retry_after_seconds: 1 });
    expect(error.headers).toEqual({ 'retry-after': '1' });
    expect(error.toBody()).toMatchObject({ retry_after_seconds: 1 });
  });

  it('sends no Retry-After for a code the table does not mark, whatever its facts', () => {
    expect(refuse('inventory_pending', 'wait', { retry_after_seconds: 5 }).headers).toEqual({});
  });
});

describe('refuseOnly', () => {
  it('refuses with the codes of its list', () => {
    const refuseClaim = refuseOnly(['not_found', 'not_claimable']);
    expect(refuseClaim('not_claimable', 'still held').toBody()).toEqual({
      code: 'not_claimable',
      detail: 'still held',
    });
  });

  it('does not compile a code outside its list', () => {
    const refuseClaim = refuseOnly(['not_found', 'not_claimable']);
    // @ts-expect-error a code the list (and so the route's documentation) does not hold
    expect(refuseClaim('price_moved', 'undocumented').code).toBe('price_moved');
  });
});

describe('BUY_ERRORS', () => {
  it('holds the source rules of an order, which a hand-kept list once missed', () => {
    for (const kind of ['order', 'market_buy'] as const)
      expect(BUY_ERRORS[kind]).toEqual(
        expect.arrayContaining(['unsupported_item', 'cannot_mix_sources', 'one_external_per_order']),
      );
  });

  it('tells the two kinds apart by who may buy', () => {
    expect(BUY_ERRORS.order).toContain('steam_account_required');
    expect(BUY_ERRORS.order).not.toContain('external_buy_disabled');
    expect(BUY_ERRORS.market_buy).toContain('external_buy_disabled');
    expect(BUY_ERRORS.market_buy).not.toContain('steam_account_required');
  });
});
