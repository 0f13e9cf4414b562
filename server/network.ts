/**
 * The network a client address counts as for per-address limits: an IPv4 address as it is, an
 * IPv6 address's /64 (one household, phone or server gets a whole /64, so counting addresses
 * would give one client 2^64 tries). IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is its IPv4 address.
 * With a trusted proxy, `request.ip` is already the forwarded client's address.
 */
export function clientNetwork(address: string): string {
  if (!address.includes(':')) return address;
  if (/^::ffff:\d/i.test(address)) return address.slice(7);
  return `${expandIpv6(address).slice(0, 4).map((group) => group.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

function expandIpv6(address: string): string[] {
  const [head, tail = ''] = address.split('%')[0].split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  return [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
}
