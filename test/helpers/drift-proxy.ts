/**
 * A loopback HTTP proxy in front of a test service that behaves like a deployment drifting over
 * months: it adds one field to every listing it forwards (stream events and `/listings` pages), as
 * the specification's versioning allows, and sends chosen `new` events of the stream and a chosen
 * item of the `/listings` pages malformed; optionally it also spoils the price list, the FX rates
 * and the ledger (see {@link PageDrift}).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/** How a `new` event's data is spoiled. */
export type Malformation = 'no_refund_percent' | 'price_as_string' | 'cut_short';

/** A running drift proxy. */
export interface DriftProxy {
  /** The proxy's `/v1` base URL, for the collector. */
  baseUrl: string;
  /** The ids of the events sent malformed, by how. */
  malformed: Partial<Record<Malformation, string>>;
  /** The market_hash_name of each game's minAsk row sent with its price as a string. */
  pricesAsString: Map<number, string>;
  /** The listing id of the page item sent with its price as a string, once sent. */
  malformedItem: string | undefined;
  close(): Promise<void>;
}

/** How the proxy spoils the pages the price and account sources read. */
export interface PageDrift {
  /** The first row of each `/prices` page is sent with its `min_ask_usd` as a string. */
  priceAsString?: boolean;
  /** This currency's rate of `/currency` is sent as a string that is no number. */
  malformedRate?: string;
  /** A field added to every ledger row of `/transactions`, with its value. */
  ledgerField?: { field: string; value: unknown };
}

/** Options of {@link startDriftProxy}. */
export interface DriftOptions {
  /** The field added to every listing, with its value. */
  field: string;
  value: unknown;
  /** The 1-based ordinals of the stream's `new` events to spoil, by how (each once). */
  spoil: Partial<Record<Malformation, number>>;
  /** What the proxy does to the price list, the FX rates and the ledger. @default nothing */
  pages?: PageDrift;
  /** The 1-based ordinal, across every `/listings` page forwarded, of the item sent with its price as a string. */
  spoilItem?: number;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** Starts a drift proxy on 127.0.0.1 forwarding to `origin` (the service's, without `/v1`). */
export async function startDriftProxy(origin: string, options: DriftOptions): Promise<DriftProxy> {
  const malformed: DriftProxy['malformed'] = {};
  const pricesAsString = new Map<number, string>();
  let newEvents = 0;
  let items = 0;
  let malformedItem: string | undefined;
  const drift = (listing: Record<string, unknown>) => ({ ...listing, [options.field]: options.value });

  /** One SSE frame as the upstream would send it after the drift. */
  const rewriteFrame = (frame: string): string => {
    const lines = frame.split('\n');
    const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
    const dataAt = lines.findIndex((l) => l.startsWith('data: '));
    if (event !== 'new' || dataAt === -1 || id === undefined) return frame;
    newEvents += 1;
    const listing = drift(JSON.parse((lines[dataAt] as string).slice(6)) as Record<string, unknown>);
    let data = JSON.stringify(listing);
    const how = (Object.keys(options.spoil) as Malformation[]).find(
      (m) => options.spoil[m] === newEvents && malformed[m] === undefined,
    );
    if (how === 'no_refund_percent') {
      delete listing.refund_percent;
      data = JSON.stringify(listing);
    } else if (how === 'price_as_string') {
      data = JSON.stringify({ ...listing, price_usd: String(listing.price_usd) });
    } else if (how === 'cut_short') data = data.slice(0, Math.floor(data.length / 2));
    if (how) malformed[how] = id;
    lines[dataAt] = `data: ${data}`;
    return lines.join('\n');
  };

  const pages = options.pages ?? {};
  /** What each spoiled page path does to its answer. */
  const spoilPage: Record<string, (answer: Record<string, unknown>) => unknown> = {};
  if (pages.priceAsString)
    spoilPage['/v1/prices'] = (page) => {
      const [first, ...rest] = page.items as Record<string, unknown>[];
      if (first === undefined) return page;
      pricesAsString.set(page.app_id as number, first.market_hash_name as string);
      return { ...page, items: [{ ...first, min_ask_usd: String(first.min_ask_usd) }, ...rest] };
    };
  const { malformedRate, ledgerField } = pages;
  if (malformedRate)
    spoilPage['/v1/currency'] = (answer) => ({
      ...answer,
      rates: { ...(answer.rates as object), [malformedRate]: 'n/a' },
    });
  if (ledgerField)
    spoilPage['/v1/transactions'] = (page) => ({
      ...page,
      data: (page.data as object[]).map((row) => ({ ...row, [ledgerField.field]: ledgerField.value })),
    });

  const headersOf = (from: Record<string, string | string[] | undefined>) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(from))
      if (typeof value === 'string' && !HOP_BY_HOP.has(name) && name !== 'host') headers[name] = value;
    return headers;
  };

  const forward = async (req: IncomingMessage, res: ServerResponse, signal: AbortSignal) => {
    const upstream = await request(`${origin}${req.url}`, {
      method: (req.method ?? 'GET') as 'GET',
      headers: headersOf(req.headers),
      signal,
    });
    const headers = headersOf(upstream.headers);
    const path = (req.url ?? '').split('?')[0];
    if (path === '/v1/listings/stream' && upstream.statusCode === 200) {
      res.writeHead(200, headers);
      let pending = '';
      for await (const chunk of upstream.body) {
        pending += (chunk as Buffer).toString('utf8');
        const frames = pending.split('\n\n');
        pending = frames.pop() ?? '';
        if (frames.length > 0) res.write(`${frames.map(rewriteFrame).join('\n\n')}\n\n`);
      }
      res.end(pending);
      return;
    }
    let body: string | Buffer = Buffer.from(await upstream.body.arrayBuffer());
    if (path === '/v1/listings' && upstream.statusCode === 200) {
      const page = JSON.parse(body.toString('utf8')) as { items: Record<string, unknown>[] };
      const spoilItem = (listing: Record<string, unknown>) => {
        items += 1;
        if (items !== options.spoilItem) return listing;
        malformedItem = String(listing.id);
        return { ...listing, price_usd: String(listing.price_usd) };
      };
      body = JSON.stringify({ ...page, items: page.items.map(drift).map(spoilItem) });
    }
    if (upstream.statusCode === 200 && path !== undefined && path in spoilPage)
      body = JSON.stringify(spoilPage[path]?.(JSON.parse(body.toString('utf8'))));
    res.writeHead(upstream.statusCode, headers).end(body);
  };

  const server = createServer((req, res) => {
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    forward(req, res, aborted.signal).catch(() => req.socket.destroy());
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    malformed,
    pricesAsString,
    get malformedItem() {
      return malformedItem;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
