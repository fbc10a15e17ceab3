import { isIP } from 'node:net';

/**
 * What an IP address is, for the webhook URL rules (no SSRF into the operator's network):
 * - `public`: anywhere on the internet;
 * - `loopback`: this machine (127.0.0.0/8, ::1);
 * - `private`: the operator's networks (10/8, 172.16/12, 192.168/16, CGNAT 100.64/10, unique
 *   local fc00::/7);
 * - `forbidden`: never a receiver: unspecified (0.0.0.0/8, ::), link-local (169.254/16 with the
 *   clouds' metadata service, fe80::/10), multicast, broadcast and reserved, documentation and
 *   benchmarking ranges, IETF protocol assignments, site-local fec0::/10, discard 100::/64,
 *   Teredo 2001::/32.
 * IPv6 forms that carry an IPv4 address (mapped ::ffff:0:0/96, translated ::ffff:0:0:0/96,
 * compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by that IPv4 address; the
 * local-use NAT64 prefix 64:ff9b:1::/48 is private.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'forbidden';

type V4Range = readonly [base: string, bits: number, kind: Exclude<AddressClass, 'public'>];

const V4_RANGES: readonly V4Range[] = [
  ['0.0.0.0', 8, 'forbidden'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'forbidden'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'forbidden'],
  ['192.0.2.0', 24, 'forbidden'],
  ['192.88.99.0', 24, 'forbidden'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'forbidden'],
  ['198.51.100.0', 24, 'forbidden'],
  ['203.0.113.0', 24, 'forbidden'],
  ['224.0.0.0', 4, 'forbidden'],
  ['240.0.0.0', 4, 'forbidden'],
];

type V6Range = readonly [base: string, bits: number, kind: Exclude<AddressClass, 'public'>];

const V6_RANGES: readonly V6Range[] = [
  ['::1', 128, 'loopback'],
  ['::', 128, 'forbidden'],
  ['100::', 64, 'forbidden'],
  ['2001::', 32, 'forbidden'],
  ['2001:db8::', 32, 'forbidden'],
  ['fc00::', 7, 'private'],
  // Local-use NAT64 (RFC 8215): a network's own translator, towards its own IPv4 hosts as well,
  // at prefix lengths that put the IPv4 address elsewhere in the 128 bits.
  ['64:ff9b:1::', 48, 'private'],
  ['fe80::', 10, 'forbidden'],
  ['fec0::', 10, 'forbidden'],
  ['ff00::', 8, 'forbidden'],
];

function v4Number(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

/** The 128 bits of an IPv6 address in any valid text form (`::`, a dotted IPv4 tail). */
function v6Number(address: string): bigint {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const v4 = v4Number(dotted[1]);
    text = `${text.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailGroups];
  return groups.reduce((n, group) => (n << 16n) + BigInt(parseInt(group, 16)), 0n);
}

function inV4(value: number, base: string, bits: number): boolean {
  const size = 2 ** (32 - bits);
  return Math.floor(value / size) === Math.floor(v4Number(base) / size);
}

function inV6(value: bigint, base: string, bits: number): boolean {
  const shift = BigInt(128 - bits);
  return value >> shift === v6Number(base) >> shift;
}

function classifyV4(value: number): AddressClass {
  for (const [base, bits, kind] of V4_RANGES) if (inV4(value, base, bits)) return kind;
  return 'public';
}

const LOW_32 = 0xffffffffn;

/** The IPv4 address an IPv6 address carries, or null. */
function embeddedV4(value: bigint): number | null {
  const high96 = value >> 32n;
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated, SIIT), ::a.b.c.d (compatible; not
  // :: or ::1 themselves), 64:ff9b::a.b.c.d (NAT64)
  if (
    high96 === 0xffffn ||
    high96 === 0xffff0000n ||
    (high96 === 0n && value > 1n) ||
    high96 === 0x64ff9b0000000000000000n
  ) {
    return Number(value & LOW_32);
  }
  // 2002:aabb:ccdd::/48 (6to4) carries aa.bb.cc.dd in bits 16–48.
  if (value >> 112n === 0x2002n) return Number((value >> 80n) & LOW_32);
  return null;
}

/** The class of an IP address (IPv4 or IPv6 text); anything else is `forbidden`. */
export function addressClass(address: string): AddressClass {
  const version = isIP(address.replace(/%.*$/, ''));
  if (version === 4) return classifyV4(v4Number(address));
  if (version !== 6) return 'forbidden';
  const value = v6Number(address);
  const v4 = embeddedV4(value);
  if (v4 !== null) return classifyV4(v4);
  for (const [base, bits, kind] of V6_RANGES) if (inV6(value, base, bits)) return kind;
  return 'public';
}
