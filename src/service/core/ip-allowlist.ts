/** IP allowlists of keys: CIDRs or single addresses, IPv4 and IPv6, with IPv4-mapped IPv6 unwrapped. */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Parses an address, unwrapping `::ffff:a.b.c.d` to IPv4; null when it is not an address. */
export function parseAddress(text: string): Address | null {
  if (!ipaddr.isValid(text)) return null;
  const parsed = ipaddr.parse(text);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
}

/** The canonical text of a client address (IPv4-mapped IPv6 shown as IPv4). */
export function normalizeAddress(text: string): string {
  return parseAddress(text)?.toString() ?? text;
}

/** True when the string is a CIDR (`10.0.0.0/8`, `2001:db8::/32`) or a single address. */
export function isCidr(text: string): boolean {
  try {
    parseCidr(text);
    return true;
  } catch {
    return false;
  }
}

/** True when `ip` falls in one of the CIDRs; an empty list allows every address. */
export function isAllowed(ip: string, cidrs: readonly string[]): boolean {
  if (cidrs.length === 0) return true;
  const address = parseAddress(ip);
  if (!address) return false;
  return cidrs.some((cidr) => {
    const [range, bits] = parseCidr(cidr);
    return range.kind() === address.kind() && address.match(range as never, bits);
  });
}

function parseCidr(text: string): [Address, number] {
  if (text.includes('/')) {
    const [range, bits] = ipaddr.parseCIDR(text);
    const mapped = range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress();
    return mapped ? [(range as ipaddr.IPv6).toIPv4Address(), Math.max(0, bits - 96)] : [range, bits];
  }
  const address = parseAddress(text);
  if (!address) throw new Error(`not an address: ${text}`);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}
