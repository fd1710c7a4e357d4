import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Random } from '../../src/service/sim/random.js';
import { readAllListings } from '../helpers/listings.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { openStream, readRaw } from '../helpers/stream.js';

describe('a stream client that resumes at random points', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ listings: 0, rateLimits: { read: 1_000_000 } });
  });
  afterAll(() => t.close());

  it('ends with exactly the live listings that /listings returns', async () => {
    const { key } = await t.account();
    const random = new Random(3);
    const live = new Set<string>();
    let lastId: string | undefined;
    let applied = 0;
    for (let round = 0; round < 8; round++) {
      const client = openStream(t.baseUrl, key, lastId === undefined ? {} : { lastEventId: lastId });
      if (round === 0) {
        // The first client has no id, so it sees only what happens after it connects: start churn once it has.
        await expect
          .poll(async () => ((await t.sandbox('/streams')).body.open[key.slice(8, 20)] ?? 0) === 1, {
            timeout: 10_000,
          })
          .toBe(true);
        await t.sandbox('/simulator', { paused: false, rate_per_second: 400 });
        // Until it holds an event id there is nothing to resume from, so the first connection stays until then.
        await client.until((events) => events.length > 0);
      }
      // Real time on purpose: the client drops at a random point of a live, churning stream.
      await new Promise((r) => setTimeout(r, 100 + random.next() * 400));
      client.close();
      for (const event of client.events) {
        if (event.type === 'new') live.add(event.data.id);
        if (event.type === 'gone') live.delete(event.data.id);
        expect(event.type).not.toBe('resync');
      }
      applied += client.events.length;
      lastId = client.lastId() ?? lastId;
      // ...and stays away a random while, so the next one resumes with a backlog to replay.
      await new Promise((r) => setTimeout(r, random.next() * 300));
    }
    await t.sandbox('/simulator', { paused: true });
    const last = openStream(t.baseUrl, key, lastId === undefined ? {} : { lastEventId: lastId });
    // The stream carries CS2 only: catch up to the last CS2 event, not to the log's head.
    const head = await t.service.context.catalogue.log.lastEventIdOf(730);
    try {
      await last.until((e) => e.some((x) => x.id === head) || lastId === head);
    } finally {
      last.close();
    }
    for (const event of last.events) {
      if (event.type === 'new') live.add(event.data.id);
      if (event.type === 'gone') live.delete(event.data.id);
    }
    const listed = (await readAllListings(t, key)).map((l) => l.id);
    expect(applied).toBeGreaterThan(500);
    expect(listed.length).toBeGreaterThan(100);
    expect([...live].sort()).toEqual(listed.sort());
  });
});

describe('a stalled stream client', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ listings: 1000, maxStreamBacklogBytes: 256 * 1024 });
  });
  afterAll(() => t.close());

  it('is disconnected while a healthy client keeps receiving', async () => {
    const stalledKey = (await t.account()).key;
    const healthyKey = (await t.account()).key;
    const port = Number(new URL(t.baseUrl).port);
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    socket.write(
      `GET /v1/listings/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${stalledKey}\r\n\r\n`,
    );
    const healthy = openStream(t.baseUrl, healthyKey);
    await t.sandbox('/simulator', { paused: false, rate_per_second: 3000 });
    try {
      const stalledKeyId = stalledKey.slice(8, 20);
      const openOf = async () => (await t.sandbox('/streams')).body.open[stalledKeyId] ?? 0;
      expect(await openOf()).toBe(1);
      await expect.poll(openOf, { timeout: 30_000, interval: 100 }).toBe(0);
      const texts = await Promise.all(
        [0, 1, 2].map(() =>
          readRaw(`${t.baseUrl}/listings/stream`, stalledKey, (s) => s.includes(': connected'), 5000),
        ),
      );
      expect(texts.every((s) => s.includes(': connected'))).toBe(true);
      const before = healthy.events.length;
      expect(before).toBeGreaterThan(100);
      await healthy.until((e) => e.length > before + 100);
      const ids = healthy.events.map((e) => Number(e.id.split('-')[1]));
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await t.sandbox('/simulator', { paused: true });
      healthy.close();
      socket.destroy();
    }
  });
});
