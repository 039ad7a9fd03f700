/**
 * Whether a host is this machine's loopback, decided from its canonical form: the one test every
 * client (may a secret go over plain http?) and every server (may it run without a token?) uses.
 *
 * Give it a URL's `hostname` (the WHATWG parser has already turned `0x7f.1`, `2130706433` and `127.1`
 * into `127.0.0.1`, `[0:0::1]` into `[::1]`, upper case into lower) or a `--listen` host. Loopback is
 * `localhost`, 127.0.0.0/8 and `::1` (in any IPv6 spelling). Everything else is not: `localhost.` (a
 * name a resolver may send to DNS), `localhost.example`, and the IPv4-mapped `::ffff:127.0.0.1`, whose
 * meaning depends on the socket's dual-stack setting. When in doubt, a host is somebody else's.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const V6_LOOPBACK = new BlockList();
V6_LOOPBACK.addAddress('::1', 'ipv6');

export function isLoopbackHost(host: string): boolean {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h === 'localhost') return true;
  if (isIPv4(h)) return h.startsWith('127.');
  if (isIPv6(h)) return V6_LOOPBACK.check(h, 'ipv6');
  return false;
}

/** `0.0.0.0`, `::`: every interface (then the Host header can name anything). */
export function isWildcardHost(host: string): boolean {
  const h = host.trim().replace(/^\[|\]$/g, '');
  return h === '0.0.0.0' || h === '::' || h === '0:0:0:0:0:0:0:0';
}
