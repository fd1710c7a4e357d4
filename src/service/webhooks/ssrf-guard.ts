/**
 * The SSRF guard of webhook URLs, run at registration and again before every send: HTTPS only,
 * absolute, no credentials, and a host whose every address is public unicast. It answers the
 * address it checked, so the connection can be pinned to it (a DNS answer that changes between
 * the check and the connect cannot reach an internal host).
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Resolves a host name to its addresses (A and AAAA). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** Options of {@link UrlGuard}. */
export interface UrlGuardOptions {
  /**
   * Lets `https://127.0.0.1…` through (written exactly so) for a receiver on this machine: the
   * sandbox's `--webhook-allow-loopback`, never on in production. @default false
   */
  allowLoopback?: boolean;
  /** The DNS look-up. @default the system resolver (`dns.lookup` with every address) */
  resolve?: ResolveHost;
}

/** A URL that passed the guard, with the address the connection must go to. */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
  /** Allowed only by the loopback allowance (its CA is trusted for it). */
  loopback: boolean;
}

/** What the guard answers: the checked target, or why the URL is refused. */
export type GuardVerdict = { ok: true; target: CheckedTarget } | { ok: false; problem: string };

/** IPv6 global unicast; anything outside it is not a public address. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Checks webhook URLs against the SSRF rules. */
export class UrlGuard {
  private readonly resolve: ResolveHost;

  constructor(private readonly options: UrlGuardOptions = {}) {
    this.resolve = options.resolve ?? resolveWithSystem;
  }

  /** Checks the URL's form and every address its host resolves to; makes no connection. */
  async check(raw: string): Promise<GuardVerdict> {
    const parsed = parseWebhookUrl(raw);
    if (typeof parsed === 'string') return { ok: false, problem: parsed };
    const host = parsed.hostname
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase();
    if (this.options.allowLoopback && writtenHost(raw) === '127.0.0.1')
      return { ok: true, target: { url: parsed, address: '127.0.0.1', family: 4, loopback: true } };
    if (host === 'localhost' || host.endsWith('.localhost'))
      return { ok: false, problem: `${host} names this machine; use a public host` };
    let addresses: string[];
    if (ipaddr.isValid(host)) addresses = [host];
    else {
      addresses = await this.resolve(host).catch(() => []);
      if (addresses.length === 0) return { ok: false, problem: `${host} does not resolve` };
    }
    for (const address of addresses) {
      const range = nonPublicRange(address);
      if (range !== null)
        return {
          ok: false,
          problem:
            address === host
              ? `${host} is a ${range} address; only public addresses are allowed`
              : `${host} resolves to ${address}, a ${range} address; only public addresses are allowed`,
        };
    }
    const address = addresses[0] as string;
    const family = ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4;
    return { ok: true, target: { url: parsed, address, family, loopback: false } };
  }
}

/** The URL when its form is acceptable (absolute HTTPS without credentials), else the problem. */
export function parseWebhookUrl(raw: string): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL such as https://hooks.example.com/market';
  }
  if (url.protocol !== 'https:') return `url must use https, not ${url.protocol.replace(/:$/, '')}`;
  if (url.username !== '' || url.password !== '') return 'url must not carry credentials (user:password@)';
  if (url.hostname === '') return 'url has no host';
  return url;
}

/**
 * The range name of an address that is not public unicast (private, loopback, link-local, CGNAT,
 * unspecified, broadcast, multicast, reserved, documentation, and IPv6 forms that embed an IPv4
 * address: mapped, NAT64, 6to4, Teredo), or null for a public one.
 */
export function nonPublicRange(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'unparsable';
  }
  const range = parsed.range();
  if (range !== 'unicast') return range;
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'reserved';
  return null;
}

/** The host exactly as written in the URL (before any normalisation of odd spellings), lower-cased. */
function writtenHost(raw: string): string {
  const authority = /^https:\/\/([^/?#]*)/i.exec(raw.trim())?.[1] ?? '';
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.indexOf(':');
  return (end > 0 ? host.slice(0, end) : host).toLowerCase();
}

async function resolveWithSystem(hostname: string): Promise<string[]> {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
}
