/**
 * A plan step verb whose args ARE a cloud CLI's command line (`["aws", "s3api", "list-buckets"]`):
 * the same checks, classification (from the rules table), substitution and run for every CLI
 * provider. The provider supplies the syntax, the rules and a client that adds its own options
 * (profile, region, project, subscription, JSON output) and runs the command.
 */
import { substituteBody } from '../plan/bindings.js';
import type { ArgProblem, StepVerb } from '../provider.js';
import { PLACEHOLDER_PATTERN } from '../../schemas/plan.js';
import { option, parseCommand, type CliSyntax, type ParsedCommand } from './argv.js';
import { classifyCommand, type CliRuleSet } from './rules.js';
import { showCommand, type CliOutput } from './runner.js';

/** What a CLI provider's client does: run the args after the tool name, with the provider's additions. */
export interface CliClient {
  run(args: readonly string[], signal: AbortSignal): Promise<CliOutput>;
}

export interface CliVerbSpec {
  syntax: CliSyntax;
  rules: CliRuleSet;
  /** What the args must hold besides the command words, e.g. no `--output text` (the step's data must be JSON). */
  check?(cmd: ParsedCommand, args: readonly string[]): ArgProblem[];
  /** How many command words a step needs at least (aws: a service and an operation). */
  minWords: number;
  /** Options a step may not use, with why (debug output that prints request headers and tokens). */
  refuse?: Record<string, string>;
  usage: string;
}

export function cliVerb(spec: CliVerbSpec): StepVerb<CliClient> {
  const tool = spec.syntax.tool;
  const parse = (args: readonly string[]) => parseCommand(args.slice(1), spec.syntax);
  return {
    verb: tool,

    checkArgs(args) {
      const problems: ArgProblem[] = [];
      args.forEach((arg, i) => {
        if (i === 0) return;
        if (arg === '') problems.push({ field: `args[${i}]`, message: 'an empty argument (the CLI would read it as a value of nothing)' });
        if (arg.includes('\u0000')) problems.push({ field: `args[${i}]`, message: 'a NUL byte cannot be passed to a program' });
      });
      const cmd = parse(args);
      if (cmd.words.length < spec.minWords) problems.push({ field: 'args', message: `${tool} steps are ${spec.usage}` });
      for (const [name, why] of Object.entries(spec.refuse ?? {})) {
        if (option(cmd, name) !== undefined) problems.push({ field: 'args', message: `${name} is not allowed in a ${tool} step: ${why}` });
      }
      problems.push(...(spec.check?.(cmd, args) ?? []));
      return problems;
    },

    classify: (args) => classifyCommand(spec.rules, parse(args)),

    substitute(args, bindings) {
      // Each value is one argv element: nothing is interpreted by a shell. Inside inline JSON a value is
      // JSON-escaped, so a quote in it cannot add keys (`--cli-input-json '{"Bucket": "<B>"}'`).
      return args.map((arg, i) => {
        if (i === 0) return arg;
        if (/^\s*[[{]/.test(arg)) return substituteBody(arg, bindings);
        return arg.replace(PLACEHOLDER_PATTERN, (whole, name: string) => (name in bindings ? bindings[name]! : whole));
      });
    },

    async run(args, ctx) {
      const client = await ctx.client();
      const out = await client.run(args.slice(1), ctx.signal);
      return { data: out.data };
    },

    describe: (args) => showCommand(tool, args.slice(1)),
  };
}
