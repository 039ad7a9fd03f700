/** The addresses the emulator hands out: documentation ranges, or in the sandbox (`localAddresses`) loopback ones. */

/** The n-th address of the public pool (documentation ranges), or with `localAddresses` of a loopback one. */
export function poolIp(opts: { localAddresses: boolean }, n: number): string {
  if (opts.localAddresses) return `127.0.${1 + (Math.floor(n / 240) % 250)}.${10 + (n % 240)}`;
  const pools = ['203.0.113', '198.51.100'];
  return `${pools[Math.floor(n / 240) % 2]}.${10 + (n % 240)}`;
}
