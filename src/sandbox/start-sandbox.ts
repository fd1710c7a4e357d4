/**
 * The sandbox as a test fixture: the service started in the caller's process on a temporary
 * database and a free loopback port, with the operator endpoints behind typed methods, so a bot's
 * own test suite can make accounts, arm faults and move the clock without spawning anything.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../service/service.js';
import { makeLoopbackCertificate } from '../shared/loopback-certificate.js';
import { type OperatorCall, sandboxOf } from './operator-call.js';
import { type SandboxWebhookReceiver, startWebhookReceiver } from './webhook-receiver.js';

/** What the sandbox is started with; every option has a default that keeps a test deterministic. */
export interface SandboxOptions {
  /** Listings generated into the catalogue. @default 500 */
  listings?: number;
  /** Seed of the generated catalogue: the same seed gives the same listings. @default 1 */
  seed?: number;
  /** Listings appearing or leaving per second; 0 keeps the market still. @default 0 (paused) */
  churnPerSecond?: number;
  /**
   * PEM of a CA whose certificates the sandbox trusts for webhook URLs written exactly
   * `https://127.0.0.1[:port]/…`: a receiver of your own on this machine. The receivers of
   * {@link Sandbox.receiveWebhooks} need nothing. @default only the sandbox's own receivers
   */
  webhookCa?: string;
}

/** An account made by {@link Sandbox.createAccount}: its id and its first key, raw. */
export interface SandboxAccount {
  accountId: string;
  apiKey: string;
  keyId: string;
}

/** The opening of a sandbox account. */
export interface SandboxAccountOptions {
  /** Opening deposit in USD, settled. @default 0 */
  balanceUsd?: number;
  /** Whether the first key may trade (place orders, sell). @default false */
  trading?: boolean;
  /** A label shown in the account's views. */
  label?: string;
}

/** The service clock after a move: now, and how far it runs ahead of real time. */
export interface SandboxClock {
  /** ISO 8601 UTC. */
  now: string;
  offsetSeconds: number;
}

/** The faults that the next orders meet (`POST /sandbox/faults`). */
export interface SandboxFaultState {
  /** Every buy answers 503 `market_unavailable` until turned off. */
  marketUnavailable: boolean;
  /** Every buy answers 409 `price_updating` until turned off. */
  priceUpdating: boolean;
  /** The next N orders complete but answer `upstream_timeout` (the key then replays them). */
  upstreamTimeoutNext: number;
  /** The next N orders fail at their last step, rolled back whole. */
  orderFailedNext: number;
  /** The next N orders answer `concurrent_update`. */
  concurrentUpdateNext: number;
}

/** Arms and reads the sandbox faults. */
export interface SandboxFaults {
  /** Changes the given faults (the others stay); resolves to them all. */
  arm(change: Partial<SandboxFaultState>): Promise<SandboxFaultState>;
  /** The faults now. */
  read(): Promise<SandboxFaultState>;
  /** Turns every fault off. */
  clear(): Promise<SandboxFaultState>;
}

/** A running sandbox. */
export interface Sandbox {
  /** `http://127.0.0.1:<port>/v1`, for `new MarketClient({ baseUrl })`. */
  baseUrl: string;
  /** Makes an account with one key. */
  createAccount(options?: SandboxAccountOptions): Promise<SandboxAccount>;
  /**
   * Moves the service clock forward by `seconds`, walking every due time inside the jump (a
   * platform user's answer, a claim, a settlement, a webhook retry) before it resolves.
   */
  advanceClock(seconds: number): Promise<SandboxClock>;
  /** The faults the next orders meet. */
  faults: SandboxFaults;
  /** Any other operator endpoint, e.g. `operator('PATCH', '/accounts/acc_…', { offers: 'decline' })`. */
  operator: OperatorCall;
  /**
   * Starts a webhook receiver on 127.0.0.1 that the sandbox delivers to (HTTPS, with a certificate
   * it trusts): register its `url` as an endpoint, then verify what it `received` with
   * `verifyWebhook` and the endpoint's secret.
   *
   * @example
   * const receiver = await sandbox.receiveWebhooks();
   * const { secret } = await client.webhooks.create({ url: receiver.url });
   * // … place an order, move the clock …
   * const [delivering, completed] = await receiver.received(2);
   * const event = verifyWebhook(secret, completed.signature, completed.body);
   */
  receiveWebhooks(): Promise<SandboxWebhookReceiver>;
  /** Stops the service, its receivers, and removes its temporary database; a later call waits for the first, and does nothing more. */
  close(): Promise<void>;
}

/** Each fault off: what {@link SandboxFaults.clear} arms. */
const NO_FAULTS: SandboxFaultState = {
  marketUnavailable: false,
  priceUpdating: false,
  upstreamTimeoutNext: 0,
  orderFailedNext: 0,
  concurrentUpdateNext: 0,
};

/**
 * Starts a sandbox; close it when the test file ends.
 *
 * @example
 * const sandbox = await startSandbox();
 * const { apiKey } = await sandbox.createAccount({ balanceUsd: 100, trading: true });
 * const client = new MarketClient({ baseUrl: sandbox.baseUrl, apiKey });
 * // … place an order, then let the platform user accept it:
 * await sandbox.advanceClock(31);
 * await sandbox.close();
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  // The receivers' certificate, made before the service since it is the CA the service trusts;
  // named apart from a `webhookCa` that is trusted beside it.
  const tls = await makeLoopbackCertificate('skin-market sandbox webhook receiver');
  const receivers = new Set<SandboxWebhookReceiver>();
  const dir = await mkdtemp(join(tmpdir(), 'market-sandbox-'));
  const churn = options.churnPerSecond ?? 0;
  let service: Awaited<ReturnType<typeof startService>>;
  try {
    service = await startService({
      dbPath: join(dir, 'market.duckdb'),
      host: '127.0.0.1',
      port: 0,
      sandbox: true,
      seed: options.seed ?? 1,
      listings: options.listings ?? 500,
      churnRate: churn,
      churnPaused: churn === 0,
      webhooks: { allowLoopback: true, loopbackCa: `${tls.cert}\n${options.webhookCa ?? ''}` },
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const operator = sandboxOf(service.baseUrl);
  let closing: Promise<void> | undefined;
  const faults = (change: Partial<SandboxFaultState>) =>
    operator('POST', '/faults', toWire(change)).then(fromWire<SandboxFaultState>);
  return {
    baseUrl: service.baseUrl,
    operator,
    async createAccount(account = {}) {
      const created = (await operator('POST', '/accounts', {
        balance_usd: account.balanceUsd ?? 0,
        trading: account.trading ?? false,
        ...(account.label === undefined ? {} : { label: account.label }),
      })) as { account_id: string; api_key: string; key_id: string };
      return { accountId: created.account_id, apiKey: created.api_key, keyId: created.key_id };
    },
    async advanceClock(seconds) {
      const clock = (await operator('POST', '/clock', { advance_seconds: seconds })) as {
        now: string;
        offset_seconds: number;
      };
      return { now: clock.now, offsetSeconds: clock.offset_seconds };
    },
    async receiveWebhooks() {
      const receiver = await startWebhookReceiver(tls);
      receivers.add(receiver);
      return receiver;
    },
    faults: {
      arm: faults,
      read: () => operator('GET', '/faults').then(fromWire<SandboxFaultState>),
      clear: () => faults(NO_FAULTS),
    },
    close() {
      // Once: a second call (an afterAll after an error path closed it) waits for the first.
      closing ??= service
        .close()
        .finally(() => Promise.all([...receivers].map((receiver) => receiver.close())))
        .finally(() => rm(dir, { recursive: true, force: true }));
      return closing;
    },
  };
}

/** `{ orderFailedNext: 1 }` → `{ order_failed_next: 1 }`: the operator endpoints speak the API's case. */
function toWire(fields: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [
      key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      value,
    ]),
  );
}

/** `{ order_failed_next: 1 }` → `{ orderFailedNext: 1 }`. */
function fromWire<T>(body: unknown): T {
  return Object.fromEntries(
    Object.entries(body as object).map(([key, value]) => [
      key.replace(/_([a-z])/g, (_, c) => c.toUpperCase()),
      value,
    ]),
  ) as T;
}
