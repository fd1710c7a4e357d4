import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCollector } from '../../src/collector/daemon.js';
import { startTestCollector } from '../helpers/collector.js';
import { type DriftProxy, startDriftProxy } from '../helpers/drift-proxy.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('the price, FX and account sources behind an upstream that drifts', () => {
  let t: TestService;
  let key: string;
  let proxy: DriftProxy;
  let collector: RunningCollector | null = null;
  const fatal: unknown[] = [];

  beforeAll(async () => {
    t = await startTestService({ listings: 300, rateLimits: { read: 1_000_000 } });
    ({ key } = await t.account({ balance_usd: 50 }));
    proxy = await startDriftProxy(t.origin, {
      field: 'seller_rating',
      value: 4.5,
      spoil: {},
      pages: { priceAsString: true, malformedRate: 'EUR', ledgerField: { field: 'memo', value: 'drifted' } },
    });
  });
  afterAll(async () => {
    await collector?.stop();
    await proxy.close();
    await t.close();
  });

  it('keeps the sources running and lands the spoiled rows partly typed, counted, the new field kept', async () => {
    collector = await startTestCollector({ ...t, baseUrl: proxy.baseUrl }, key, {
      sources: { games: [730], accountIntervalMs: 300 },
      onFatal: (error) => fatal.push(error),
    });
    const warehouse = collector.warehouse;
    const rows = (sql: string) => warehouse.query(sql);
    const allLanded = async () => {
      const [landed] = await rows(
        `SELECT (SELECT count(*) FROM raw_minask_prices) AS minask, (SELECT count(*) FROM raw_fx_rates) AS fx,
                (SELECT count(*) FROM raw_account_transactions) AS ledger`,
      );
      return Number(landed?.minask) > 0 && Number(landed?.fx) > 0 && Number(landed?.ledger) > 0;
    };
    await expect.poll(allLanded, { timeout: 30_000 }).toBe(true);
    // A second list fetched past the first proves the source kept going after a spoiled row.
    const fetchesBefore = Number(
      (await rows("SELECT count(*) AS n FROM loads WHERE source = 'prices:730'"))[0]?.n,
    );
    const fetches = async () =>
      Number((await rows("SELECT count(*) AS n FROM loads WHERE source = 'prices:730'"))[0]?.n);
    await expect.poll(fetches, { timeout: 30_000 }).toBeGreaterThan(fetchesBefore);
    expect(fatal).toEqual([]);

    // The minAsk row with a string price: landed, its price null with a note, the rest typed.
    const spoiled = proxy.pricesAsString.get(730);
    expect(spoiled).toBeDefined();
    const priced = await rows(
      `SELECT min_ask_usd, listed_count, typing_notes::VARCHAR AS notes, raw ->> '$.min_ask_usd' AS sent
       FROM minask_prices_typed WHERE market_hash_name = '${spoiled?.replaceAll("'", "''")}' AND raw IS NOT NULL`,
    );
    expect(priced.length).toBeGreaterThan(0);
    for (const row of priced) {
      expect(row.min_ask_usd).toBeNull();
      expect(Number(row.listed_count)).toBeGreaterThan(0);
      expect(String(row.notes)).toContain('min_ask_usd');
      expect(typeof row.sent).toBe('string');
    }
    const [typed] = await rows('SELECT count(*) AS n, count(min_ask_usd) AS priced FROM minask_prices');
    expect(Number(typed?.priced)).toBe(Number(typed?.n) - priced.length);

    // The FX rate that is no number: EUR's row has no rate and says why; the other currencies type.
    const fx = await rows(
      'SELECT currency, rate, typing_notes::VARCHAR AS notes FROM fx_rates_typed WHERE raw IS NOT NULL ORDER BY currency',
    );
    const eur = fx.filter((r) => r.currency === 'EUR');
    expect(eur.length).toBeGreaterThan(0);
    for (const row of eur) {
      expect(row.rate).toBeNull();
      expect(String(row.notes)).toContain('rate');
    }
    expect(fx.filter((r) => r.currency === 'GBP').every((r) => Number(r.rate) > 0)).toBe(true);

    // The ledger's new field: kept in extra_fields, and the row typed whole.
    const ledger = await rows(
      `SELECT transaction_id, type, amount_usd, extra_fields ->> '$.memo' AS memo, len(typing_notes) AS notes
       FROM account_transactions_typed`,
    );
    expect(ledger.length).toBeGreaterThan(0);
    expect(ledger.every((r) => r.memo === 'drifted' && Number(r.notes) === 0 && r.type !== null)).toBe(true);

    // Nothing was rejected: every spoiled row names its group, currency or id.
    expect(await rows('SELECT source, reason FROM rejected_payloads')).toEqual([]);

    // Each source is still running and counts what it landed: partly typed rows and the new field.
    const status = (name: string) => collector?.status().find((s) => s.name === name);
    for (const name of ['prices:730', 'fx', 'account', 'snapshot'])
      expect(status(name)?.stopped, name).toBeNull();
    expect(status('prices:730')?.partlyTyped).toBeGreaterThan(0);
    expect(status('prices:730')?.rejected).toBe(0);
    expect(status('fx')?.partlyTyped).toBeGreaterThan(0);
    expect(status('account')?.newFields?.map((f) => f.field)).toEqual(['memo']);
    expect(status('account')?.newFields?.[0]?.count).toBeGreaterThan(0);
    expect(status('account')?.partlyTyped).toBe(0);

    // The models read the views: the spoiled row stays out of the price list's staging, the rest is in.
    await warehouse.refreshModels({ select: ['stg_price_lists', 'stg_fx_rates'] });
    const [staged] = await rows(
      `SELECT count(*) FILTER (WHERE min_ask_usd IS NULL) AS unpriced, count(*) AS n FROM stg_price_lists`,
    );
    expect(Number(staged?.unpriced)).toBe(0);
    expect(Number(staged?.n)).toBeGreaterThan(10);
    const [rates] = await rows('SELECT count(*) FILTER (WHERE rate IS NULL) AS unrated FROM stg_fx_rates');
    expect(Number(rates?.unrated)).toBe(0);
  }, 120_000);
});
