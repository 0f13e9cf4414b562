import { describe, expect, it } from 'vitest';
import { clientNetwork } from '../network';

describe('clientNetwork', () => {
  it('is an IPv4 address as it is, an IPv4-mapped address as IPv4, and an IPv6 address as its /64', () => {
    expect(clientNetwork('203.0.113.9')).toBe('203.0.113.9');
    expect(clientNetwork('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientNetwork('2001:db8:77:1:abcd::1')).toBe('2001:db8:77:1::/64');
    expect(clientNetwork('2001:0db8:0077:0001:ffff:ffff:ffff:ffff')).toBe('2001:db8:77:1::/64');
    expect(clientNetwork('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientNetwork('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    expect(clientNetwork('2001:db8:77:2::1')).not.toBe(clientNetwork('2001:db8:77:1::1'));
  });
});
