/** Trade offers on a real DuckDB file: each outcome by behaviour and by the sandbox, expiry, and the listener's unit of work. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isApiError } from '../../../src/contract/api-error.js';
import { type OfferClosed, Platform } from '../../../src/service/platform/platform.js';
import { openPlatform, type PlatformFixture, START, STEAM_ID } from './fixture.js';

const TTL = Platform.OFFER_TTL_MS;
let f: PlatformFixture;
let closed: OfferClosed[];

beforeEach(async () => {
  f = await openPlatform();
  closed = f.closed;
});
afterEach(() => f.close());

async function behave(change: { offers?: 'accept' | 'decline' | 'ignore'; acceptAfterSeconds?: number }) {
  await f.units.run((uow) => f.platform.setUserBehaviour(uow, STEAM_ID, change));
}

/** The refusal `work` ends with, as `code: detail`. */
async function refusalOf(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
  } catch (error) {
    return isApiError(error) ? error.message : `not a refusal: ${String(error)}`;
  }
  return undefined;
}

describe('Platform.sendOffer', () => {
  it('sends an active offer that expires 15 minutes after it was sent', async () => {
    const sent = await f.send('ord_1');
    expect(sent.sentAt).toBe(START);
    expect(await f.platform.offersOf(STEAM_ID)).toEqual([
      {
        offer_id: sent.offerId,
        order_id: 'ord_1',
        state: 'active',
        from_steam_id: null,
        to_steam_id: STEAM_ID,
        sent_at: '2026-01-01T00:00:00.000Z',
        expires_at: '2026-01-01T00:15:00.000Z',
      },
    ]);
  });

  it('counts only committed active offers as pending', async () => {
    await f.send('ord_1');
    await f.units
      .run(async (uow) => {
        await f.platform.sendOffer(uow, { orderId: 'ord_2', steamId: STEAM_ID, items: [] });
      })
      .catch(() => undefined);
    await expect(
      f.units.run(async (uow) => {
        await f.platform.sendOffer(uow, {
          orderId: 'ord_3',
          steamId: STEAM_ID,
          items: [{ itemKey: 'k', appId: 730, marketHashName: 'x', listingId: 'l', listingJson: '{}' }],
        });
        throw new Error('the order failed after sending');
      }),
    ).rejects.toThrow('the order failed');
    expect(f.platform.pendingOfferCount(STEAM_ID)).toBe(1);
    expect(await f.platform.offersOf(STEAM_ID)).toHaveLength(1);
  });

  it('lists offers newest first', async () => {
    const first = await f.send('ord_1');
    f.clock.advance(1_000);
    const second = await f.send('ord_2');
    expect((await f.platform.offersOf(STEAM_ID)).map((o) => o.offer_id)).toEqual([
      second.offerId,
      first.offerId,
    ]);
  });
});

describe('Platform.runDue', () => {
  it('accepts for an unknown user 30 seconds after sending, not before', async () => {
    const { offerId } = await f.send('ord_1');
    await f.advance(29_999);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('active');
    expect(f.platform.pendingOfferCount(STEAM_ID)).toBe(1);
    await f.advance(1);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('accepted');
    expect(f.platform.pendingOfferCount(STEAM_ID)).toBe(0);
    expect(closed).toEqual([
      {
        offerId,
        orderId: 'ord_1',
        steamId: STEAM_ID,
        outcome: 'accepted',
        senderSteamId: null,
        at: START + 30_000,
        itemKeys: ['ord_1:0', 'ord_1:1'],
      },
    ]);
  });

  it('accepts after the delay the user was given', async () => {
    await behave({ acceptAfterSeconds: 120 });
    const { offerId } = await f.send('ord_1');
    await f.advance(119_000);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('active');
    await f.advance(1_000);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('accepted');
  });

  it('declines for a declining user when it would otherwise accept', async () => {
    await behave({ offers: 'decline', acceptAfterSeconds: 60 });
    const { offerId } = await f.send('ord_1');
    await f.advance(59_999);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('active');
    await f.advance(1);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('declined');
    expect(closed.map((c) => [c.outcome, c.at])).toEqual([['declined', START + 60_000]]);
    expect(await f.platform.inventoryOf(STEAM_ID)).toEqual([]);
  });

  it('expires an ignored offer exactly 15 minutes after sending, not before', async () => {
    await behave({ offers: 'ignore' });
    const { offerId } = await f.send('ord_1');
    await f.advance(TTL - 1);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('active');
    expect(closed).toEqual([]);
    await f.advance(1);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('expired');
    expect(closed.map((c) => [c.outcome, c.at])).toEqual([['expired', START + TTL]]);
    expect(f.platform.pendingOfferCount(STEAM_ID)).toBe(0);
  });

  it('expires an offer the user would answer only at or after 15 minutes', async () => {
    await behave({ acceptAfterSeconds: TTL / 1000 });
    const { offerId } = await f.send('ord_1');
    await f.advance(TTL);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('expired');
  });

  it('closes offers in the order they fell due when the clock jumps', async () => {
    await behave({ offers: 'ignore' });
    await f.send('ord_ignored');
    await f.units.run((uow) =>
      f.platform.setUserBehaviour(uow, '76561197960265741', { acceptAfterSeconds: 5 }),
    );
    await f.send('ord_quick', '76561197960265741');
    await f.advance(60 * 60_000);
    expect(closed.map((c) => [c.orderId, c.outcome])).toEqual([
      ['ord_quick', 'accepted'],
      ['ord_ignored', 'expired'],
    ]);
  });

  it('re-plans active offers when the user changes behaviour', async () => {
    const { offerId } = await f.send('ord_1');
    f.clock.advance(10_000);
    await behave({ offers: 'decline', acceptAfterSeconds: 5 });
    await f.platform.runDue(f.clock.now());
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('declined');
    expect(closed[0]?.at).toBe(START + 5_000);
  });

  it('rolls back the listener writes with the offer when the listener throws, and retries on the next pass', async () => {
    await f.db.run('CREATE TABLE listener_log (offer_id VARCHAR)');
    let fail = true;
    f.platform.onOfferClosed(async (uow, event) => {
      await uow.tx.run('INSERT INTO listener_log VALUES ($id)', { id: event.offerId });
      if (fail) throw new Error('trading could not record the outcome');
    });
    const { offerId } = await f.send('ord_1');
    await expect(f.advance(30_000)).rejects.toThrow('failed to close');
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('active');
    expect(await f.db.read('SELECT * FROM listener_log')).toEqual([]);
    expect(await f.platform.inventoryOf(STEAM_ID)).toEqual([]);
    expect(f.platform.pendingOfferCount(STEAM_ID)).toBe(1);
    fail = false;
    await f.advance(1_000);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('accepted');
    expect(await f.db.read('SELECT * FROM listener_log')).toEqual([{ offer_id: offerId }]);
    expect(await f.platform.inventoryOf(STEAM_ID)).toHaveLength(2);
  });

  it('closes the other due offers when one listener call fails', async () => {
    f.platform.onOfferClosed(async (_uow, event) => {
      if (event.orderId === 'ord_bad') throw new Error('no');
    });
    const bad = await f.send('ord_bad');
    const good = await f.send('ord_good');
    await expect(f.advance(30_000)).rejects.toThrow(AggregateError);
    expect(await f.stateOf(STEAM_ID, bad.offerId)).toBe('active');
    expect(await f.stateOf(STEAM_ID, good.offerId)).toBe('accepted');
  });
});

describe('Platform.act', () => {
  it.each([
    ['accept', 'accepted'],
    ['decline', 'declined'],
  ] as const)('%s on an active offer closes it now', async (action, state) => {
    await behave({ offers: 'ignore' });
    const { offerId } = await f.send('ord_1');
    f.clock.advance(5_000);
    const view = await f.platform.act(offerId, action);
    expect(view.state).toBe(state);
    expect(closed.map((c) => [c.outcome, c.at])).toEqual([[state, START + 5_000]]);
    await f.advance(TTL);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe(state);
    expect(closed).toHaveLength(1);
  });

  it('rolls back an accepted offer and tells the listener', async () => {
    const { offerId } = await f.send('ord_1');
    await f.advance(30_000);
    f.clock.advance(60_000);
    expect((await f.platform.act(offerId, 'rollback')).state).toBe('rolled_back');
    expect(closed.map((c) => [c.outcome, c.at])).toEqual([
      ['accepted', START + 30_000],
      ['rolled_back', START + 90_000],
    ]);
  });

  it.each([
    ['rollback', 'active'],
    ['accept', 'accepted'],
    ['decline', 'accepted'],
    ['accept', 'declined'],
    ['rollback', 'declined'],
    ['accept', 'expired'],
  ] as const)('refuses %s on a %s offer', async (action, state) => {
    await behave({ offers: state === 'declined' ? 'decline' : 'ignore' });
    const { offerId } = await f.send('ord_1');
    if (state === 'accepted') await f.platform.act(offerId, 'accept');
    if (state === 'declined') await f.advance(30_000);
    if (state === 'expired') await f.advance(TTL);
    expect(await f.stateOf(STEAM_ID, offerId)).toBe(state);
    expect(await refusalOf(f.platform.act(offerId, action))).toMatch(
      `invalid_request: cannot ${action} a trade offer that is ${state}: `,
    );
    expect(await f.stateOf(STEAM_ID, offerId)).toBe(state);
  });

  it('lets a step that fell due happen before the operator acts', async () => {
    await behave({ offers: 'ignore' });
    const { offerId } = await f.send('ord_1');
    f.clock.advance(TTL);
    expect(await refusalOf(f.platform.act(offerId, 'accept'))).toMatch(
      'invalid_request: cannot accept a trade offer that is expired',
    );
    expect(await f.stateOf(STEAM_ID, offerId)).toBe('expired');
  });

  it('refuses an unknown offer id', async () => {
    expect(await refusalOf(f.platform.act('4999999999', 'accept'))).toBe(
      'not_found: no trade offer 4999999999',
    );
  });
});

describe('Platform.load', () => {
  it('counts the active offers already in the database', async () => {
    await f.send('ord_1');
    await f.send('ord_2');
    const reopened = new Platform({ db: f.db, units: f.units, clock: f.clock });
    expect(reopened.pendingOfferCount(STEAM_ID)).toBe(0);
    await reopened.load();
    expect(reopened.pendingOfferCount(STEAM_ID)).toBe(2);
  });
});

describe('Platform.setUserBehaviour', () => {
  it.each([
    [{ acceptAfterSeconds: -1 }],
    [{ acceptAfterSeconds: Number.NaN }],
    [{ acceptAfterSeconds: 86_401 }],
    [{ offers: 'maybe' as 'accept' }],
  ])('refuses %o', async (change) => {
    expect(await refusalOf(behave(change))).toMatch(/^invalid_request: (offers|acceptAfterSeconds) must be /);
  });
});
