/**
 * Hints written for people at a terminal name CLI flags (`--resume`, `--allow-duplicate-names`); an
 * agent calling a tool cannot pass flags, it sets tool arguments. Every hint an MCP tool returns goes
 * through `forAgents`: a flag that has a tool argument becomes that argument, and one that only the
 * person running `assistant mcp` can set is said to be a server setting, so the agent tells its user
 * instead of retrying with something it cannot send.
 */

type Rewrite = [RegExp, string | ((match: string) => string)];

/** CLI wording → what an agent sets. Longer phrases first: "resume (--resume)" before "--resume". */
const TOOL_ARGUMENTS: Rewrite[] = [
  [/\bresume \(--resume\)/g, 'mode "resume"'],
  [/\bfresh \(--fresh\)/g, 'mode "fresh"'],
  [/\brun it without resume\b/g, 'call it with mode "new"'],
  [/\b(?:run|apply) (?:it |the same plan )?again with --resume\b/g, 'call assistant_plan_apply again with mode "resume"'],
  [/--resume\b/g, 'mode "resume"'],
  [/--fresh\b/g, 'mode "fresh"'],
  [/\brun again with --allow-duplicate-names\b/g, 'call again with allow_duplicate_names: true'],
  [/--allow-duplicate-names\b/g, 'allow_duplicate_names: true'],
  [/--max-hourly-cost(?: <[^>]*>)?/g, 'the max_hourly_cost argument'],
];

/** Flags of `assistant mcp` itself: only whoever starts the server sets them. */
const SERVER_SETTINGS: Rewrite[] = [
  [/\brun again with (?:--maker )?--destroyer\b/g, 'ask the person running this MCP server to restart it with --destroyer (a server setting: no tool argument allows destructive plans)'],
  [/(?<![\w-])--ai-profile(?: <name>| builtin)?/g, (m) => `the server setting \`assistant mcp ${m.includes('builtin') ? '--ai-profile builtin' : '--ai-profile <name>'}\``],
];

/** A hint reworded for an agent. */
export function forAgents(hint: string): string {
  let out = hint;
  for (const [re, by] of [...TOOL_ARGUMENTS, ...SERVER_SETTINGS]) out = typeof by === 'string' ? out.replace(re, by) : out.replace(re, by);
  return out;
}

/** Text with `hint: …` lines (a run report, an error): those lines reworded, the rest untouched. */
export function hintLinesForAgents(text: string): string {
  return text.replace(/^hint: .*$/gm, (line) => forAgents(line));
}
