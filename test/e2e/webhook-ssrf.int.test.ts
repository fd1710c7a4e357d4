/**
 * The SSRF guard through the API, with the sandbox's loopback allowance on: every URL of the table
 * (odd spellings of loopback, private and reserved ranges, IPv6 forms embedding them, local names,
 * hosts resolving to them, unresolvable hosts) is refused 400 invalid_webhook_url with not one
 * connection made to the receiver listening on the port they name; a host that resolves publicly at
 * registration and to loopback at send time is refused before the send, again with no connection.
 * Host names resolve through a table of the test (nothing leaves the machine).
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedLookup } from '../../src/service/webhooks/sender.js';
import type { TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveriesOf, register, startWebhookService, until } from '../helpers/webhooks.js';

/** A documentation-range stand-in would be refused itself; this is a public address no test ever connects to. */
const PUBLIC = '93.184.215.14';

describe('the webhook SSRF guard', () => {
  let receiver: WebhookReceiver;
  let t: TestService;
  let key: string;
  let rebound = false;
  const names: Record<string, () => string[]> = {
    'public.example': () => [PUBLIC],
    'internal.example': () => ['10.1.2.3'],
    'metadata.example': () => ['169.254.169.254'],
    'mixed.example': () => [PUBLIC, '192.168.0.5'],
    'loop6.example': () => ['::1'],
    'mapped.example': () => ['::ffff:127.0.0.1'],
    'rebind.example': () => (rebound ? ['127.0.0.1'] : [PUBLIC]),
  };
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startWebhookService(receiver, {
      webhooks: { resolve: async (host) => names[host]?.() ?? [] },
    });
    key = (await t.account({ balance_usd: 0 })).key;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const port = () => receiver.port;
  const table: [string, () => string][] = [
    ['plain http', () => `http://127.0.0.1:${port()}/`],
    ['credentials', () => `https://user:secret@127.0.0.1:${port()}/`],
    ['a relative URL', () => '/hooks'],
    ['127.1', () => `https://127.1:${port()}/`],
    ['0x7f.1', () => `https://0x7f.1:${port()}/`],
    ['017700000001', () => `https://017700000001:${port()}/`],
    ['2130706433', () => `https://2130706433:${port()}/`],
    ['127.0.0.2', () => `https://127.0.0.2:${port()}/`],
    ['[::ffff:7f00:1]', () => `https://[::ffff:7f00:1]:${port()}/`],
    ['[::ffff:127.0.0.1]', () => `https://[::ffff:127.0.0.1]:${port()}/`],
    ['[::1]', () => `https://[::1]:${port()}/`],
    ['localhost', () => `https://localhost:${port()}/`],
    ['a .localhost name', () => `https://hooks.localhost:${port()}/`],
    ['10/8', () => `https://10.0.0.1:${port()}/`],
    ['172.16/12', () => `https://172.16.0.1:${port()}/`],
    ['192.168/16', () => `https://192.168.1.1:${port()}/`],
    ['link-local 169.254/16', () => `https://169.254.169.254:${port()}/`],
    ['CGNAT 100.64/10', () => `https://100.64.0.1:${port()}/`],
    ['unspecified 0.0.0.0', () => `https://0.0.0.0:${port()}/`],
    ['0 (0.0.0.0)', () => `https://0:${port()}/`],
    ['broadcast', () => `https://255.255.255.255:${port()}/`],
    ['multicast', () => `https://224.0.0.1:${port()}/`],
    ['documentation 192.0.2/24', () => `https://192.0.2.10:${port()}/`],
    ['documentation 198.51.100/24', () => `https://198.51.100.10:${port()}/`],
    ['documentation 203.0.113/24', () => `https://203.0.113.10:${port()}/`],
    ['benchmarking 198.18/15', () => `https://198.18.0.1:${port()}/`],
    ['reserved 240/4', () => `https://240.0.0.1:${port()}/`],
    ['IPv6 unspecified', () => `https://[::]:${port()}/`],
    ['IPv6 link-local', () => `https://[fe80::1]:${port()}/`],
    ['IPv6 unique local', () => `https://[fd00::1]:${port()}/`],
    ['IPv6 multicast', () => `https://[ff02::1]:${port()}/`],
    ['IPv6 documentation', () => `https://[2001:db8::1]:${port()}/`],
    ['NAT64 of 127.0.0.1', () => `https://[64:ff9b::7f00:1]:${port()}/`],
    ['6to4 of 127.0.0.1', () => `https://[2002:7f00:1::1]:${port()}/`],
    ['Teredo', () => `https://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${port()}/`],
    ['a name resolving to 10/8', () => `https://internal.example:${port()}/`],
    ['a name resolving to the metadata address', () => `https://metadata.example:${port()}/`],
    ['a name with one private address among public ones', () => `https://mixed.example:${port()}/`],
    ['a name resolving to ::1', () => `https://loop6.example:${port()}/`],
    ['a name resolving to an IPv4-mapped loopback', () => `https://mapped.example:${port()}/`],
    ['an unresolvable name', () => `https://nowhere.example:${port()}/`],
  ];

  it.each(table)('refuses %s with 400 invalid_webhook_url and makes no connection', async (_, url) => {
    const refused = await t.call('/webhooks', { key, method: 'POST', body: { url: url() } });
    expect([refused.status, refused.body.code]).toEqual([400, 'invalid_webhook_url']);
    expect(refused.body.detail.length).toBeGreaterThan(0);
    expect(receiver.connections()).toBe(0);
  });

  it('refuses the same URLs on PATCH', async () => {
    const hook = await register(t, key, `https://public.example:${port()}/`);
    for (const [, url] of table) {
      const refused = await t.call(`/webhooks/${hook.id}`, { key, method: 'PATCH', body: { url: url() } });
      expect([url(), refused.status, refused.body.code]).toEqual([url(), 400, 'invalid_webhook_url']);
    }
    expect(receiver.connections()).toBe(0);
    await t.call(`/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('checks again before every send: a name that now resolves to loopback is refused, unconnected', async () => {
    const { key: buyer } = await t.account({ balance_usd: 0 });
    const hook = await register(t, buyer, `https://rebind.example:${port()}/hook`);
    rebound = true;
    const tested = await t.call(`/webhooks/${hook.id}/test`, { key: buyer, method: 'POST' });
    expect(tested.body).toMatchObject({ delivered: false, status_code: null });
    expect(tested.body.error).toBe(
      'refused: rebind.example resolves to 127.0.0.1, a loopback address; only public addresses are allowed',
    );
    expect(receiver.connections()).toBe(0);
    expect(await deliveriesOf(t, buyer, hook.id)).toEqual([]);
  });

  it('lets exactly https://127.0.0.1 through under the allowance (the counter does count)', async () => {
    const hook = await register(t, key, `https://127.0.0.1:${port()}/allowed`);
    const tested = await t.call(`/webhooks/${hook.id}/test`, { key, method: 'POST' });
    expect(tested.body).toMatchObject({ delivered: true, status_code: 200 });
    await until(() => receiver.connections() > 0);
  });

  it('pins the connection to the checked address: a name no DNS knows still reaches it', async () => {
    const agent = new Agent({
      // The certificate names 127.0.0.1 only; the point here is where the socket goes.
      connect: {
        lookup: pinnedLookup('127.0.0.1', 4),
        ca: receiver.ca,
        checkServerIdentity: () => undefined,
      },
    });
    try {
      const answer = await request(`https://pinned.invalid:${port()}/pinned`, { dispatcher: agent });
      expect(answer.statusCode).toBe(200);
      await answer.body.dump();
      expect(receiver.requests.at(-1)?.path).toBe('/pinned');
    } finally {
      await agent.close();
    }
  });
});
