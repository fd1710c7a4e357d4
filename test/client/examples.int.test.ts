/**
 * The example scripts of src/client/examples run as a user runs them (`node --import tsx <file>`, with
 * MARKET_BASE_URL and MARKET_API_KEY), against a real service, and print what they promise.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectPath } from '../../src/shared/project-root.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let test: TestService;
let receiver: WebhookReceiver;
let key: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  test = await startTestService({ webhooks: { allowLoopback: true, loopbackCa: receiver.ca } });
  ({ key } = await test.account({ balance_usd: 100, trading: true }));
});
afterAll(async () => {
  await test.close();
  await receiver.close();
});

/** Runs one example to its end; its stdout. */
async function runExample(name: string, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', projectPath('src', 'client', 'examples', `${name}.ts`)],
    {
      cwd: projectPath(),
      env: { ...process.env, MARKET_BASE_URL: test.baseUrl, MARKET_API_KEY: key, ...env },
    },
  );
  return stdout;
}

/** Runs one example that is expected to fail; its exit code and stderr. */
async function runExampleFailing(name: string, env: Record<string, string>) {
  const failed = await runExample(name, env).then(
    () => {
      throw new Error(`${name} succeeded`);
    },
    (error: { code: number; stderr: string }) => error,
  );
  return { code: failed.code, stderr: failed.stderr };
}

describe('the client examples', () => {
  it('market-data prints listings, minAsk rows and a rate', async () => {
    const out = await runExample('market-data');
    expect(out).toMatch(/^\S+ .+ \d+(\.\d+)?$/m);
    expect(out).toMatch(/^minAsk /m);
    expect(out).toMatch(/^EUR per USD \d/m);
  });

  it('orders places an order and finds it by id, by custom_id and in the ledger', async () => {
    const out = await runExample('orders');
    const orderId = /^placed (\S+) /m.exec(out)?.[1];
    expect(orderId).toMatch(/^ord_730_/);
    expect(out).toContain(`by custom_id ${orderId}`);
    expect(out).toMatch(/^ledger purchase -\d/m);
  });

  it('webhooks registers an endpoint, tests it and deletes it', async () => {
    const out = await runExample('webhooks', { WEBHOOK_URL: `${receiver.origin}/hooks` });
    expect(out).toMatch(/^endpoint \S+ secret svc_whsec_/m);
    expect(out).toContain('test delivered true 200');
    expect(out).toMatch(/^deleted /m);
    expect(receiver.requests.some((r) => r.path === '/hooks')).toBe(true);
  });

  it('webhooks without WEBHOOK_URL, and any example without a key, say what to set and register nothing', async () => {
    const before = (await test.call('/webhooks', { key })).body.data.length;
    const noUrl = await runExampleFailing('webhooks', { WEBHOOK_URL: '' });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/^WEBHOOK_URL is not set: set it to an HTTPS URL .*market webhooks listen/m);
    const noKey = await runExampleFailing('orders', { MARKET_API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/^MARKET_API_KEY is not set: set it to a key of the service/m);
    expect((await test.call('/webhooks', { key })).body.data).toHaveLength(before);
  });

  it("sandbox-test, a bot's own node:test suite, passes on a sandbox it starts itself", async () => {
    // No MARKET_BASE_URL matters here: the example starts its own sandbox in its process.
    const out = await runExample('sandbox-test');
    expect(out).toMatch(/^ok 1 - an order completes once the platform user accepts the offer$/m);
    expect(out).toMatch(/^ok 2 - an armed fault reaches the bot/m);
    expect(out).toMatch(/^# fail 0$/m);
  });
});
