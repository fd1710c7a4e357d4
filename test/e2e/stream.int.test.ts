import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingSchema } from '../../src/contract/listing.js';
import { churnUntil } from '../helpers/churn.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { openStream, readRaw, type SeenEvent } from '../helpers/stream.js';

let t: TestService;
let key: string;

beforeAll(async () => {
  t = await startTestService({ listings: 2000, heartbeatMs: 150 });
  ({ key } = await t.account());
});
afterAll(() => t.close());

const churn = (rate: number) => t.sandbox('/simulator', { paused: false, rate_per_second: rate });
const pause = () => t.sandbox('/simulator', { paused: true });

/** Event ids the log holds for CS2 after a position, in order (the reference). */
async function loggedIdsAfter(service: TestService, position: number): Promise<string[]> {
  const log = service.service.context.catalogue.log;
  const rows = await service.service.context.db.read<{ position: number }>(
    'SELECT position FROM listing_events WHERE app_id = 730 AND position > $p ORDER BY position',
    { p: position },
  );
  return rows.map((r) => log.eventId(Number(r.position)));
}

const positionOf = (id: string) => Number(id.split('-')[1]);

describe('GET /v1/listings/stream', () => {
  it('opens with ": connected" and sends ": heartbeat" comments', async () => {
    const text = await readRaw(`${t.baseUrl}/listings/stream`, key, (s) => s.split(': heartbeat').length > 2);
    expect(text.startsWith(': connected\n\n')).toBe(true);
    expect(text).toContain(': heartbeat\n\n');
  });

  it('sends new events with exactly the Listing object and gone events with { id }', async () => {
    const client = openStream(t.baseUrl, key);
    await churn(200);
    await client.until(
      (e) => e.some((x) => x.type === 'gone') && e.filter((x) => x.type === 'new').length > 20,
    );
    await pause();
    client.close();
    for (const event of client.events) {
      if (event.type === 'new') {
        expect(listingSchema.strict().parse(event.data)).toEqual(event.data);
        expect(event.data.listed_at).not.toBeNull();
        expect(event.data.id.startsWith('c')).toBe(true);
      } else {
        expect(event.type).toBe('gone');
        expect(Object.keys(event.data)).toEqual(['id']);
      }
    }
    const ids = client.events.map((e) => positionOf(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it.each([
    ['min_price=5&max_price=50', (l: any) => l.price_usd >= 5 && l.price_usd <= 50],
    ['category=Rifle', (l: any) => l.category === 'Rifle'],
    ['rarity=covert', (l: any) => l.rarity === 'Covert'],
    ['wear=Field-Tested', (l: any) => l.wear === 'Field-Tested'],
    ['stat_trak=exclude', (l: any) => !l.market_hash_name.includes('StatTrak™')],
    ['souvenir=exclude', (l: any) => !l.market_hash_name.startsWith('Souvenir ')],
    ['delivery=instant', (l: any) => l.delivery === 'instant'],
    ['min_refund_percent=50', (l: any) => l.refund_percent !== null && l.refund_percent >= 50],
  ])('narrows new events with %s and never filters gone events', async (query, keep) => {
    const from = t.service.context.catalogue.log.head;
    const client = openStream(t.baseUrl, key, { query });
    await client.opened;
    await churn(300);
    await client.until(
      (e) => e.filter((x) => x.type === 'new').length >= 3 && e.some((x) => x.type === 'gone'),
    );
    await pause();
    client.close();
    const news = client.events.filter((e) => e.type === 'new');
    expect(news.every((e) => keep(e.data))).toBe(true);
    const gone = client.events.filter((e) => e.type === 'gone').map((e) => e.id);
    const loggedGone = await t.service.context.db.read<{ position: number }>(
      "SELECT position FROM listing_events WHERE app_id = 730 AND kind = 'gone' AND position > $p ORDER BY position",
      { p: from },
    );
    const expectedGone = loggedGone.map((r) => t.service.context.catalogue.log.eventId(Number(r.position)));
    expect(
      expectedGone.slice(0, gone.length).filter((id) => positionOf(id) >= positionOf(gone[0] as string)),
    ).toEqual(gone);
  });

  it('filters by name, exactly and case-insensitively', async () => {
    const target = [...t.service.context.catalogue.index.values(730)][0];
    const name = target?.name as string;
    const client = openStream(t.baseUrl, key, { query: `name=${encodeURIComponent(name.toUpperCase())}` });
    await client.opened;
    await t.service.context.catalogue.apply([{ kind: 'remove', id: target?.id as string }]);
    await t.service.context.catalogue.apply([
      { kind: 'add', appId: 730, listing: { ...target?.listing, price_usd: 1.23 } as any },
    ]);
    await client.until((e) => e.some((x) => x.type === 'new'));
    client.close();
    expect(client.events.map((e) => e.type)).toEqual(['gone', 'new']);
    expect(client.events[1]?.data.price_usd).toBe(1.23);
  });

  it.each([
    ['min_price=abc'],
    ['wear=Pristine'],
    ['delivery=soon'],
    ['min_refund_percent=150'],
    ['stat_trak=maybe'],
    ['min_price=10&max_price=1'],
  ])('answers 400 invalid_param for %s before the stream opens', async (query) => {
    const res = await t.call(`/listings/stream?${query}`, { key });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_param');
  });

  it('needs a key', async () => {
    const res = await t.call('/listings/stream');
    expect(res.status).toBe(401);
  });

  it.each(['header', 'query'] as const)(
    'replays every event after the id sent by %s, then goes live',
    async (how) => {
      await churn(300);
      const first = openStream(t.baseUrl, key);
      await first.until((e) => e.length >= 10);
      first.close();
      const resumeFrom = first.lastId() as string;
      // The market moves on while no stream is open: those events are what the replay must carry.
      await expect
        .poll(async () => (await loggedIdsAfter(t, positionOf(resumeFrom))).length >= 10, { timeout: 10_000 })
        .toBe(true);
      const second =
        how === 'header'
          ? openStream(t.baseUrl, key, { lastEventId: resumeFrom })
          : openStream(t.baseUrl, key, { query: `last_event_id=${resumeFrom}` });
      await second.until((e) => e.length >= 200);
      await pause();
      const expected = await loggedIdsAfter(t, positionOf(resumeFrom));
      await second.until((e) => e.length >= expected.length);
      second.close();
      expect(second.events.map((e) => e.id)).toEqual(expected.slice(0, second.events.length));
      expect(second.events.length).toBe(expected.length);
    },
  );

  it.each([
    ['a garbage', () => 'not an event id', /not an event id of this feed/],
    ['a foreign', () => 'zzzzzzzz-12', /another or a wiped database/],
    [
      'a future',
      () => t.service.context.catalogue.log.eventId(t.service.context.catalogue.log.head + 1000),
      /past the newest event/,
    ],
  ])(
    'answers resync with the id to resume from for %s id, then the events after that id',
    async (_, idOf, why) => {
      const before = t.service.context.catalogue.log.head;
      const client = openStream(t.baseUrl, key, { lastEventId: idOf() });
      await client.until((e) => e.length > 0);
      await churn(200);
      await client.until((e) => e.length > 5);
      await pause();
      client.close();
      const [resync, ...live] = client.events;
      expect(resync).toMatchObject({ type: 'resync', data: { reason: 'last_event_id_expired' } });
      expect(resync?.data.detail).toMatch(why);
      expect(resync?.data.detail).not.toContain('older than the retained history');
      // The notice's id is a position of this log, the head when the stream went live: what follows is
      // every event after it, so resuming from it misses nothing.
      const from = positionOf(resync?.id ?? '');
      expect(resync?.id).toBe(t.service.context.catalogue.log.eventId(from));
      expect(from).toBeGreaterThanOrEqual(before);
      expect(live.map((e) => e.id)).toEqual((await loggedIdsAfter(t, from)).slice(0, live.length));
      const resumed = openStream(t.baseUrl, key, { lastEventId: resync?.id as string });
      const expected = await loggedIdsAfter(t, from);
      await resumed.until((e) => e.length >= expected.length);
      resumed.close();
      expect(resumed.events.map((e) => e.id)).toEqual(expected);
    },
  );

  it('allows 3 streams per key; the 4th answers 429 too_many_streams, and a closed one frees its place', async () => {
    const { key: k, keyId } = await t.account();
    const open = [openStream(t.baseUrl, k), openStream(t.baseUrl, k), openStream(t.baseUrl, k)];
    await Promise.all(open.map((c) => c.opened));
    const fourth = await t.call('/listings/stream', { key: k });
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({ code: 'too_many_streams', limit: 3 });
    open[0]?.close();
    await expect
      .poll(async () => ((await t.sandbox('/streams')).body.open[keyId] ?? 0) < 3, { timeout: 10_000 })
      .toBe(true);
    const text = await readRaw(`${t.baseUrl}/listings/stream`, k, (s) => s.includes(': connected'));
    expect(text).toContain(': connected');
    for (const c of open) c.close();
  });
});

describe('stream retention and restarts', () => {
  it('answers resync for an id older than the retained history', async () => {
    const s = await startTestService({ listings: 500, retention: { maxRows: 50 } });
    try {
      const { key: k } = await s.account();
      await churnUntil(s, { changes: 250, rate: 500 });
      const oldId = s.service.context.catalogue.log.eventId(1);
      await s.service.context.catalogue.log.prune(s.clock.now());
      expect(s.service.context.catalogue.log.oldest).toBeGreaterThan(2);
      const head = s.service.context.catalogue.log.head;
      const client = openStream(s.baseUrl, k, { lastEventId: oldId });
      await client.until((e) => e.length > 0);
      client.close();
      expect(client.events[0]?.type).toBe('resync');
      expect(client.events[0]?.data.detail).toContain('older than the retained history');
      expect(positionOf(client.events[0]?.id ?? '')).toBeGreaterThanOrEqual(head);
      expect(client.events[0]?.id).toMatch(new RegExp(`^${s.service.context.catalogue.log.logId}-\\d+$`));
    } finally {
      await s.close();
    }
  });

  it('resumes after the service restarts on the same database, with nothing lost or repeated', async () => {
    const first = await startTestService({ listings: 500 });
    const dbPath = `${first.dir}/market.duckdb`;
    const { key: k } = await first.account();
    const a = openStream(first.baseUrl, k);
    await first.sandbox('/simulator', { paused: false, rate_per_second: 300 });
    await a.until((e) => e.length >= 20);
    a.close();
    const resumeFrom = a.lastId() as string;
    await expect
      .poll(async () => (await loggedIdsAfter(first, positionOf(resumeFrom))).length >= 10, {
        timeout: 10_000,
      })
      .toBe(true);
    await first.service.close();
    const second = await startTestService({ dbPath, churnPaused: false, churnRate: 300 });
    try {
      const b = openStream(second.baseUrl, k, { lastEventId: resumeFrom });
      await b.until((e) => e.length >= 150);
      await second.sandbox('/simulator', { paused: true });
      const expected = await loggedIdsAfter(second, positionOf(resumeFrom));
      await b.until((e) => e.length >= expected.length);
      b.close();
      const got = b.events.map((e: SeenEvent) => e.id);
      expect(got).toEqual(expected);
      expect(new Set(got).size).toBe(got.length);
      expect(got.length).toBeGreaterThan(0);
      expect(positionOf(got[0] as string)).toBeGreaterThan(positionOf(resumeFrom));
    } finally {
      await second.close();
      await first.close().catch(() => undefined);
    }
  });
});
