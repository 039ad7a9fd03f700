/**
 * The SPEC's commands and flags that are not built yet. They answer "not available yet" (exit 2)
 * instead of "unknown command", so a user following the SPEC learns the feature is planned, not
 * mistyped. When an issue lands, delete its line here. No imports: cli.ts consults this table
 * before loading any command group.
 */
export interface NotYet {
  /** `assistant <group>` (and every subcommand), or `assistant <group> <sub>` when `sub` is set. */
  group: string;
  sub?: string;
  /** Only when this flag is given (e.g. `ask --iam`). */
  flag?: string;
  what: string;
}

// Every command and flag of the SPEC is built (the integrations of issue 30 were the last). A command
// that is planned but not yet built gets its line here again.
export const NOT_AVAILABLE_YET: readonly NotYet[] = [];

/** The top-level commands of the table (for help's "coming later" line). */
export function laterGroups(): string[] {
  return NOT_AVAILABLE_YET.filter((n) => !n.sub && !n.flag).map((n) => n.group);
}

/** The entry matching `assistant <group> <argv…>`, if the user asked for something not built yet. */
export function notAvailableYet(group: string, argv: string[]): { command: string; what: string } | undefined {
  const end = argv.indexOf('--');
  const args = end === -1 ? argv : argv.slice(0, end);
  for (const n of NOT_AVAILABLE_YET) {
    if (n.group !== group) continue;
    if (n.sub && args[0] !== n.sub) continue;
    if (n.flag && !args.some((a) => a === n.flag || a.startsWith(`${n.flag}=`))) continue;
    return { command: ['assistant', group, n.sub, n.flag].filter(Boolean).join(' '), what: n.what };
  }
  return undefined;
}
