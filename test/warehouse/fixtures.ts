/** Test fixtures of the warehouse: listings, events, temp folders, and a child process runner. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Listing } from '../../src/contract/listing.js';
import type { PriceRow } from '../../src/contract/market.js';
import type { ObservationRow, StreamEventRow, Warehouse, WarehouseBatch } from '../../src/warehouse/index.js';

/** Epoch ms all fixture times count from: 2026-11-01T00:00:00.000Z. */
export const T0 = Date.parse('2026-11-01T00:00:00.000Z');

/** A CS2 listing with id `id`; `overrides` replace fields. */
export function makeListing(id: string, overrides: Partial<Listing> = {}): Listing {
  return {
    id,
    market_hash_name: 'AK-47 | Redline (Field-Tested)',
    wear: 'Field-Tested',
    doppler_phase: null,
    float_value: 0.1834,
    paint_seed: 412,
    stickers: [
      { name: 'Sticker | Crown (Foil)', image: 'https://cdn.example/crown.png', slot: 1, wear: 0.25 },
    ],
    price_usd: 12.34,
    category: 'Rifle',
    rarity: 'Classified',
    image: 'https://cdn.example/ak.png',
    inspect_link: 'steam://rungame/730/inspect',
    tradable: false,
    tradable_at: '2026-11-08T09:30:00.000Z',
    delivery: 'hold',
    refund_percent: 50,
    listed_at: '2026-10-31T23:59:59.123Z',
    ...overrides,
  };
}

/** A `new` event for listing `listingId`, received `at`. */
export function newEvent(
  eventId: string,
  listingId: string,
  at: number,
  overrides: Partial<Listing> = {},
): StreamEventRow {
  return {
    eventId,
    kind: 'new',
    listingId,
    appId: 730,
    listing: makeListing(listingId, overrides),
    receivedAt: at,
  };
}

/**
 * `new` events carrying `data` as the stream sent it (malformed too), ids `log-<first + i>`,
 * received a millisecond apart from T0 + `first`.
 */
export function rawNewEvents(data: readonly string[], first = 1): StreamEventRow[] {
  return data.map((d, i) => ({
    eventId: `log-${first + i}`,
    kind: 'new',
    appId: 730,
    receivedAt: T0 + first + i - 1,
    data: d,
  }));
}

/** The rows of each of `models`, without the watermark an incremental build leaves on the rows it kept. */
export async function modelRows(
  warehouse: Warehouse,
  models: readonly string[],
): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const model of models)
    out[model] = await warehouse.query(
      `SELECT COLUMNS(c -> c <> 'built_watermark') FROM ${model} ORDER BY ALL`,
    );
  return out;
}

/** A `gone` event for listing `listingId`, received `at`. */
export function goneEvent(eventId: string, listingId: string, at: number): StreamEventRow {
  return { eventId, kind: 'gone', listingId, appId: 730, listing: null, receivedAt: at };
}

/** An observation of listing `listingId` by a pass: the first item of its first page. */
export function observation(
  listingId: string,
  at: number,
  passId: string,
  overrides: Partial<Listing> = {},
  via: ObservationRow['via'] = 'poll',
): ObservationRow {
  const data = JSON.stringify(makeListing(listingId, overrides));
  return { appId: 730, observedAt: at, via, passId, page: 0, index: 0, listingId, data };
}

/** An item of pass `passId` asking `price`, at `place` ([page, index]) of its pages. */
export function pageItem(
  listingId: string,
  at: number,
  passId: string,
  via: ObservationRow['via'],
  price: number,
  place: [number, number] = [0, 0],
): ObservationRow {
  return {
    ...observation(listingId, at, passId, { price_usd: price }, via),
    page: place[0],
    index: place[1],
  };
}

/** A fresh temp folder and its removal. */
export function makeTempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'warehouse-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A child process started by {@link startScript}. */
export interface ChildRun {
  /** Resolves when the child exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  /** Resolves once the child's stdout contains `text`. */
  waitFor(text: string): Promise<void>;
  kill(signal: NodeJS.Signals): void;
}

const running = new Set<ChildProcess>();

/** Kills (SIGKILL) every script started by {@link startScript} that is still running; for `afterEach`. */
export function stopScripts(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** Runs a TypeScript script of this folder with `node --import tsx`. */
export function startScript(script: string, args: readonly string[]): ChildRun {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const w of waiters.filter((x) => stdout.includes(x.text))) w.resolve();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return {
    exited,
    waitFor: (text) =>
      new Promise<void>((resolve, reject) => {
        if (stdout.includes(text)) return resolve();
        waiters.push({ text, resolve });
        void exited.then(({ code, stderr: err }) =>
          reject(new Error(`child exited (${code}) before "${text}": ${err}`)),
        );
      }),
    kill: (signal) => child.kill(signal),
  };
}

/** A price list row of a Field-Tested item. */
export function priceRow(name: string, ask: number, count = 1): PriceRow {
  return {
    market_hash_name: name,
    wear: 'Field-Tested',
    doppler_phase: null,
    min_ask_usd: ask,
    listed_count: count,
  };
}

/** A snapshot of `rows` under `etag`, downloaded into `dir` and fetched at `at`. */
export function snapshotBatch(
  dir: string,
  etag: string,
  at: number,
  rows: readonly PriceRow[],
): WarehouseBatch {
  const file = join(dir, `${etag}.ndjson.gz`);
  writeFileSync(file, gzipSync(rows.map((r) => JSON.stringify(r)).join('\n')));
  return {
    source: 'snapshot',
    snapshot: { status: 'downloaded', etag: `"${etag}"`, generatedAt: at - 1000, fetchedAt: at, file },
  };
}

/** A small deterministic generator (mulberry32), so a failure replays. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
