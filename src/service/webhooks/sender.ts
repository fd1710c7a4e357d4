/**
 * Sends one signed webhook request: the URL is checked by the SSRF guard first, the connection is
 * pinned to the address that was checked (the undici agent's `connect.lookup`), redirects are
 * never followed, and the receiver has 10 seconds to answer. Each endpoint keeps its own
 * keep-alive agent, so one receiver's connections never hold up another's.
 */
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { WEBHOOK_HEADERS, WEBHOOK_LIMITS } from '../../contract/webhook.js';
import { webhookSignatureHeader } from '../../contract/webhook-signature.js';
import type { CheckedTarget, UrlGuard } from './ssrf-guard.js';

/** What one send did; `status` is null when no HTTP answer came back. */
export interface SendOutcome {
  ok: boolean;
  status: number | null;
  /** The first 1024 characters of the answer's body. */
  body: string | null;
  error: string | null;
  durationMs: number;
}

/** Options of {@link WebhookSender}. */
export interface SenderOptions {
  guard: UrlGuard;
  /** PEM of the CA trusted for loopback receivers (the sandbox's `--webhook-ca`). */
  loopbackCa?: string | undefined;
  /** The real time, for the signature's `t` (never the service clock). @default Date.now */
  wallNow?: () => number;
  /** How long a receiver has to answer. @default 10 s */
  timeoutMs?: number;
}

const BODY_EXCERPT = 1024;

/** Signs and sends webhook requests. */
export class WebhookSender {
  private readonly agents = new Map<string, { pin: string; agent: Agent }>();
  private readonly wallNow: () => number;
  private readonly timeoutMs: number;
  private stopping = new AbortController();

  constructor(private readonly options: SenderOptions) {
    this.wallNow = options.wallNow ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_LIMITS.receiverTimeoutSeconds * 1000;
  }

  /**
   * Checks `url`, then POSTs `body` signed with `secret` at the real time of sending; a refused
   * URL makes no connection and fails with the guard's reason.
   */
  async send(lane: string, url: string, secret: string, eventId: string, body: string): Promise<SendOutcome> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    const verdict = await this.options.guard.check(url);
    if (!verdict.ok)
      return {
        ok: false,
        status: null,
        body: null,
        error: `refused: ${verdict.problem}`,
        durationMs: took(),
      };
    const t = Math.floor(this.wallNow() / 1000);
    try {
      const response = await request(verdict.target.url, {
        method: 'POST',
        dispatcher: this.agentFor(lane, verdict.target),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'skin-market-webhooks/1',
          [WEBHOOK_HEADERS.signature]: webhookSignatureHeader(secret, t, body),
          [WEBHOOK_HEADERS.eventId]: eventId,
          [WEBHOOK_HEADERS.timestamp]: String(t),
        },
        body,
        signal: AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.stopping.signal]),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const excerpt = await readExcerpt(response.body);
      const status = response.statusCode;
      if (status >= 200 && status < 300)
        return { ok: true, status, body: excerpt, error: null, durationMs: took() };
      const location = response.headers.location;
      const error =
        status >= 300 && status < 400
          ? `redirect ${status}${location ? ` to ${String(location)}` : ''} not followed`
          : `receiver answered ${status}`;
      return { ok: false, status, body: excerpt, error, durationMs: took() };
    } catch (error) {
      return { ok: false, status: null, body: null, error: this.describe(error), durationMs: took() };
    }
  }

  /** Aborts every send in flight (at shutdown); later sends are not affected. */
  abortAll(): void {
    this.stopping.abort(new Error('the service is stopping'));
    this.stopping = new AbortController();
  }

  /** Forgets an endpoint's agent (after its deletion or a URL change). */
  forget(lane: string): void {
    const held = this.agents.get(lane);
    this.agents.delete(lane);
    void held?.agent.close().catch(() => undefined);
  }

  /** Closes every agent. */
  async close(): Promise<void> {
    const held = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(held.map((h) => h.agent.destroy().catch(() => undefined)));
  }

  /** The lane's agent pinned to the checked address; a new address gets a new agent. */
  private agentFor(lane: string, target: CheckedTarget): Agent {
    const pin = `${target.url.host}|${target.address}|${target.loopback}`;
    const held = this.agents.get(lane);
    if (held?.pin === pin) return held.agent;
    if (held) void held.agent.close().catch(() => undefined);
    const agent = new Agent({
      connect: {
        lookup: pinnedLookup(target.address, target.family),
        timeout: this.timeoutMs,
        ...(target.loopback && this.options.loopbackCa ? { ca: this.options.loopbackCa } : {}),
      },
      connections: 2,
      keepAliveTimeout: 30_000,
    });
    this.agents.set(lane, { pin, agent });
    return agent;
  }

  private describe(error: unknown): string {
    const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string } };
    if (
      e.name === 'TimeoutError' ||
      e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
      e.code === 'UND_ERR_BODY_TIMEOUT'
    )
      return `no answer within ${Math.round(this.timeoutMs / 1000)} s`;
    if (e.code === 'UND_ERR_CONNECT_TIMEOUT')
      return `connection not made within ${Math.round(this.timeoutMs / 1000)} s`;
    const code = e.code ?? e.cause?.code;
    return `connection failed: ${code ? `${code} ` : ''}${e.message ?? String(error)}`.slice(0, 500);
  }
}

/** A DNS look-up that answers only `address`, whatever name it is asked: the connection goes where the guard looked. */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as LookupFunction;
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    text += chunk.toString('utf8');
    if (text.length >= BODY_EXCERPT) {
      body.destroy();
      break;
    }
  }
  return text.slice(0, BODY_EXCERPT);
}
