/**
 * The values of some flags exactly as typed. cac turns number-looking values into numbers, so
 * `--client-secret 000123` would arrive as 123 and `--tenant 007` as 7: wrong for secrets, IDs and
 * names. Commands read such flags here instead (`--flag value` and `--flag=value`; the last wins).
 */
export function rawFlagValues(argv: readonly string[], flags: readonly string[]): Map<string, string> {
  const wanted = new Set(flags);
  const out = new Map<string, string>();
  const end = argv.indexOf('--');
  const args = end === -1 ? argv : argv.slice(0, end);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0 && wanted.has(arg.slice(0, eq))) out.set(arg.slice(0, eq), arg.slice(eq + 1));
    else if (wanted.has(arg) && i + 1 < args.length) out.set(arg, args[++i]!);
  }
  return out;
}
