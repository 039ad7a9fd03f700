/**
 * A plan step verb whose args ARE a cloud CLI's command line (`["aws", "s3api", "list-buckets"]`):
 * the same checks, classification (from the allowlist), substitution and run for every CLI provider.
 * The provider supplies the syntax, the rules and a client that adds its own options (profile, region,
 * project, subscription, JSON output) and runs the command isolated.
 *
 * Right before the child starts, the step is classified again on the args it will really get (the
 * gate's backstop: a bound value, an artefact path) and a refused or undecodable step is not run;
 * `<FILES>/…` artefacts are resolved and checked (no symlink out of --files DIR). What the step
 * produced that is a secret is registered for redaction before anything shows its output.
 */
import { substituteBody } from '../../plan/bindings.js';
import { InvalidInputError, OperationError, SafetyRefusal } from '../../errors.js';
import type { ArgProblem, StepVerb } from '../../provider.js';
import { PLACEHOLDER_PATTERN } from '../../../../schemas/plan.js';
import { option, parseCommand, type CliSyntax, type ParsedCommand } from './argv.js';
import { FILES_BINDING, resolveArtefacts } from './artefacts.js';
import { classifyCommand, matchRule, type CliRuleSet } from './rules.js';
import { showCommand, type CliOutput } from './runner.js';
import { registerStepSecrets } from './secrets.js';

/** What a CLI provider's client does: run the args after the tool name, with the provider's additions. */
export interface CliClient {
  /** `command`: which of the provider's executables (its main tool when left out, else a companion such as cloud_b's `bq`). */
  run(args: readonly string[], signal: AbortSignal, command?: string): Promise<CliOutput>;
  /** `--files DIR` of the session: where `<FILES>/…` artefacts are read from. */
  filesDir?: string;
}

export interface CliVerbSpec {
  syntax: CliSyntax;
  rules: CliRuleSet;
  /** What the args must hold besides the command words, e.g. no `--output text` (the step's data must be JSON). */
  check?(cmd: ParsedCommand, args: readonly string[]): ArgProblem[];
  /** How many command words a step needs at least (aws: a service and an operation; az: one for `az rest`). */
  minWords: number | ((cmd: ParsedCommand) => number);
  /** Options a step may not use, with why (debug output that prints request headers and tokens). */
  refuse?: Record<string, string>;
  usage: string;
}

/** Stands for a binding the journal masked (NUL: it can never be part of a real argument). */
const MASKED = '\u0000masked:';

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
      if (cmd.words.length < (typeof spec.minWords === 'number' ? spec.minWords : spec.minWords(cmd))) problems.push({ field: 'args', message: `${tool} steps are ${spec.usage}` });
      for (const [name, why] of Object.entries(spec.refuse ?? {})) {
        if (option(cmd, name) !== undefined) problems.push({ field: 'args', message: `${name} is not allowed in a ${tool} step: ${why}` });
      }
      for (const why of spec.rules.decodeProblems?.(cmd) ?? []) problems.push({ field: 'args', message: `a parameter the gate cannot decode as ${tool} would: ${why}` });
      problems.push(...(spec.check?.(cmd, args) ?? []));
      return problems;
    },

    classify: (args) => classifyCommand(spec.rules, parse(args)),

    substitute(args, bindings) {
      // Each value is one argv element: nothing is interpreted by a shell. Inside inline JSON a value is
      // JSON-escaped, so a quote in it cannot add keys (`--cli-input-json '{"Bucket": "<B>"}'`).
      // <FILES> is never substituted: the verb resolves artefacts itself, right before the run.
      const { [FILES_BINDING]: _files, ...values } = bindings;
      return args.map((arg, i) => {
        if (i === 0) return arg;
        // A binding the journal masked (a secret produced before a --resume) becomes a marker run() refuses.
        const known = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === '***' ? `${MASKED}${k}` : v]));
        if (/^\s*[[{]/.test(arg)) return substituteBody(arg, known);
        return arg.replace(PLACEHOLDER_PATTERN, (whole, name: string) => (name in known ? known[name]! : whole));
      });
    },

    async run(args, ctx) {
      const masked = args.join(' ').match(new RegExp(`${MASKED}([A-Z][A-Z0-9_]*)`));
      if (masked) {
        throw new OperationError('secret_not_kept', `the ${tool} step needs <${masked[1]}>, a secret produced by an earlier step, and the run journal does not keep secrets`, {
          hint: 'run the plan again with --fresh',
        });
      }
      const cmd = parse(args);
      const undecodable = spec.rules.decodeProblems?.(cmd) ?? [];
      if (undecodable.length) {
        throw new InvalidInputError('invalid_plan', `${showCommand(tool, args.slice(1))}: ${undecodable.join('; ')}; it was not run`, { hint: 'write the parameter as plain JSON or shorthand' });
      }
      const cls = classifyCommand(spec.rules, cmd);
      if (cls.refused?.length) {
        throw new SafetyRefusal(`${cls.refused.join('; ')}; it was not run`, { hint: 'a plan step may not read or write your files or change the CLI\'s own configuration' });
      }
      const client = await ctx.client();
      const out = await client.run(resolveArtefacts(args.slice(1), client.filesDir), ctx.signal, tool);
      const secrets = registerStepSecrets(out.data, matchRule(spec.rules, cmd)?.secrets);
      return { data: out.data, ...(secrets.length ? { secrets } : {}) };
    },

    describe: (args) => showCommand(tool, args.slice(1)),
  };
}
