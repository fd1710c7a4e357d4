import { describe, expect, it } from 'vitest';
import { nonPublicRange, parseWebhookUrl, UrlGuard } from '../../../src/service/webhooks/ssrf-guard.js';

describe('nonPublicRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.9.8.7', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.127.0.1', 'carrierGradeNat'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['239.1.1.1', 'multicast'],
    ['192.0.2.1', 'reserved'],
    ['198.51.100.1', 'reserved'],
    ['203.0.113.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:10.0.0.1', 'ipv4Mapped'],
    ['::ffff:8.8.8.8', 'ipv4Mapped'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo'],
    ['2001:db8::1', 'reserved'],
    ['::2', 'reserved'],
  ])('calls %s %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it.each(['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111'])('finds %s public', (address) => {
    expect(nonPublicRange(address)).toBeNull();
  });
});

describe('parseWebhookUrl', () => {
  it.each([
    ['ftp://hooks.example.com/', 'url must use https, not ftp'],
    ['https://a:b@hooks.example.com/', 'url must not carry credentials (user:password@)'],
    ['https://a@hooks.example.com/', 'url must not carry credentials (user:password@)'],
    ['hooks.example.com/x', 'url must be an absolute URL such as https://hooks.example.com/market'],
  ])('refuses %s', (raw, problem) => {
    expect(parseWebhookUrl(raw)).toBe(problem);
  });
});

describe('UrlGuard', () => {
  const resolve = async (host: string) => (host === 'hooks.example.com' ? ['93.184.215.14'] : []);

  it('refuses https://127.0.0.1 without the loopback allowance', async () => {
    const verdict = await new UrlGuard({ resolve }).check('https://127.0.0.1:8443/hook');
    expect(verdict).toEqual({
      ok: false,
      problem: '127.0.0.1 is a loopback address; only public addresses are allowed',
    });
  });

  it('lets exactly 127.0.0.1 through with the allowance, and nothing else', async () => {
    const guard = new UrlGuard({ resolve, allowLoopback: true });
    expect((await guard.check('https://127.0.0.1:8443/hook')).ok).toBe(true);
    for (const url of ['https://127.1:8443/', 'https://localhost/', 'https://[::1]/', 'https://10.0.0.1/'])
      expect((await guard.check(url)).ok).toBe(false);
  });

  it('answers the address it checked, for the connection to be pinned to', async () => {
    const verdict = await new UrlGuard({ resolve }).check('https://hooks.example.com/market');
    expect(verdict).toMatchObject({
      ok: true,
      target: { address: '93.184.215.14', family: 4, loopback: false },
    });
  });
});
