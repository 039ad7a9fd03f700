/**
 * `assistant ask`: answers a question (the ask flow, machines/ask/ask.ts), shows its routing
 * (`--route-only`), writes a plan (`--maker`) or runs one (`--apply`, with `--dry-run`, `--resume`,
 * `--fresh`). Flag parsing and output only; the work is in engine/ and machines/.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ExitCode, UsageError } from '../engine/core/errors.js';
import type { ReportKind } from '../machines/ask/ask-report.js';
import { ASK_PHASES } from '../machines/ask/ask-phases.js';
import { loadConfig } from '../engine/providers/config.js';
import { formerAskFlags, providerRoutings, routableProviders } from '../engine/providers/index.js';
import { PROVIDER_KINDS } from '../engine/producers/ai/kinds.js';
import { AI_PROVIDER_KINDS } from '../schemas/config-defaults.js';
import { warn, type CommandContext } from './context.js';
import { readPlanInput } from './plan-input.js';
import { withSession } from './session.js';
import { applyInput, dryRunInput, type ApplyFlags } from './apply.js';
import { declared, flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { createAnswerPrinter, createPhaseSpinner } from './progress.js';
import type { AiFlags } from './ask-maker.js';
// The question flow, reports, routing and maker load only when used: `ask --apply` runs none of them.
import { askQuestion, contextPlanFor, makePlanFromQuestion, reportActors, reportQuestion, routeQuestion, workspaceActors } from './ask-parts.js';
import { cliAskContext, cliAskObserver } from './ask-observer.js';
import { policyFromFlags, type AutostopPolicy } from '../engine/core/kits/autostop/policy.js';
import { HIDDEN_FLAG, runGroup } from './group.js';

/** What `ask`'s own flags are; its options type is derived from this table (per-provider flags: askFlagTable). */
const ASK_FLAGS = {
  routeOnly: flag.bool().option('--route-only', 'Show which provider the question goes to and the matched terms; nothing is read or asked'),
  agentTrace: flag.bool().option('--agent-trace', "Print the ask flow's state transitions on stderr"),
  newConversation: flag.bool().option('--new-conversation', 'Forget the earlier questions and answers (with this AI profile and project) before asking'),
  /** false with --no-history. */
  history: flag.bool().option('--no-history', 'Neither use nor record the conversation for this question (by default the conversation is kept per AI profile and project)'),
  apply: flag.bool().option('--apply', 'Apply a plan read from --plan-file or stdin'),
  planFile: flag.path().option('--plan-file <path>', 'Plan document to apply (or name it after --apply; default: stdin)'),
  strict: flag.bool().option('--strict', "With --apply: refuse plans in the original tool's form instead of reading them with a warning"),
  destroyer: flag.bool().option('--destroyer', 'Permit destructive steps in the plan'),
  dryRun: flag.bool().option('--dry-run', 'Send only GET requests: show each step, the cost of what the plan creates, availability and the balance'),
  resume: flag.bool().option('--resume', 'Continue an unfinished run of the same plan after its last completed step'),
  fresh: flag.bool().option('--fresh', 'Discard the journal of an unfinished run of this plan and start from the first step'),
  allowDuplicateNames: flag.bool().option('--allow-duplicate-names', 'Create resources even when their names already exist in the project (refused by default)'),
  files: flag.path().option('--files <dir>', 'The only directory a plan may read local files from (<FILES>/name in its steps; symlinks are never followed out of it)'),
  /** A budget: a decimal number above 0, as budget.max_hourly (`0x10`, `1e3`, `Infinity` refused). */
  maxHourlyCost: flag.number(0).option('--max-hourly-cost <n>', "Refuse the plan if its creates would push the account's hourly burn above n (overrides budget.max_hourly)"),
  allowUnpriced: flag.bool().option('--allow-unpriced', 'Under a budget, apply creates whose price is not known (counted as free) instead of refusing them'),
  maker: flag.bool().option('--maker', 'Write a plan for the request (JSON on stdout) instead of executing anything'),
  // Checked with the policy (engine/core/kits/autostop/policy.ts), which says what goes with what.
  autostop: flag.text().option('--autostop <idle-time>', 'With --maker: instances the plan creates stop after this long idle (GPUs and logins), e.g. 30m; see `assistant autostop --help`'),
  autostopAction: flag.text().option('--autostop-action <action>', 'With --autostop: shutdown (default; a shut-down gpucloud instance still bills), hibernate (releases the machine, keeps the volumes; the check needs autostop.allow_hibernate) or delete (the check needs autostop.allow_delete)'),
  aiProfile: flag.text().option('--ai-profile <name>', 'AI provider profile (ai.providers.<name>) or provider value; "builtin" answers and plans offline'),
  model: flag.text().option('--model <name>', 'Model of the AI profile used (beats its `model`)'),
  apiKeyEnv: flag.text().option('--api-key-env <NAME>', 'Read the AI profile\'s API key from this environment variable (beats its api_key_env)'),
  profile: flag.text().option('--profile <name>', 'cloud_a environment (infra.cloud_a.environments.<name>) or aws profile to read with'),
  workspace: flag.text().option('--workspace <name>', 'Terraform workspace (terraform.workspaces.<name>) the terraform reads use; its state, and drift against cloud_a, joins a cloud_a question'),
  terraformPlan: flag.bool().option('--terraform-plan', "Let a terraform question compute what an apply would change: terraform plan runs the workspace's providers and data sources, in a sandbox without the assistant's secrets (reads alone never run workspace code)"),
  unsandboxed: flag.bool().option('--unsandboxed', 'Where no sandbox can be made (no bubblewrap, no user namespaces), run workspace code (--terraform-plan, a non-local backend\'s state pull) as a plain process'),
  iam: flag.bool().option('--iam', 'IAM security report of cloud_a: administrator and wildcard policies, users without MFA, old or unused access keys'),
  roleArn: flag.text().option('--role-arn <arn>', 'With --iam: only this role'),
  compliance: flag.bool().option('--compliance', 'Compliance controls of cloud_a (control, pass/fail/unknown, evidence)'),
  discovery: flag.bool().option('--discovery', 'Inventory of the active cloud_a services per region (and the terraform workspace, when one is selected)'),
} satisfies FlagSpec;

type AskOptions = OptionsOf<typeof ASK_FLAGS>;

/** cac's name for an option: `--gemini-api-model` → `geminiApiModel`. */
const optionKey = (flag: string) => flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** Providers that take a key at all (gemini and bedrock use application-default or cloud_a profile credentials). */
const KEYED_KINDS = AI_PROVIDER_KINDS.filter((k) => PROVIDER_KINDS[k].keyEnv.length > 0);

/** `--openai-api-key`, but `--gemini-api-key` rather than `--gemini-api-api-key`. */
const keyFlagName = (kind: string) => `${kind.replace(/-api$/, '')}-api-key`;

/** `--<provider>-model` and `--<provider>-api-key` values keyed by provider value. */
function aiFlags(opts: AskOptions, env: Record<string, string | undefined>): AiFlags {
  const pick = (name: string) => declared(opts, optionKey(name), flag.text());
  const modelOverrides: Record<string, string> = {};
  const keyFlags: Record<string, string> = {};
  for (const kind of AI_PROVIDER_KINDS) {
    const model = pick(`${kind}-model`);
    if (model) modelOverrides[kind] = model;
    const key = KEYED_KINDS.includes(kind) ? pick(keyFlagName(kind)) : undefined;
    if (key) keyFlags[kind] = key;
  }
  // `--model` / `--api-key-env` apply to whichever profile is chosen ('*'), before the per-vendor ones.
  const model = opts.model;
  if (model) modelOverrides['*'] = model;
  const keyEnv = opts.apiKeyEnv;
  if (keyEnv !== undefined) {
    const key = env[keyEnv];
    if (!key?.trim()) throw new UsageError(`--api-key-env ${keyEnv}: the environment variable is not set`, { hint: `export ${keyEnv}=… first, or leave the flag out to use the profile's key` });
    keyFlags['*'] = key;
  }
  return { aiProfile: opts.aiProfile, modelOverrides, keyFlags };
}

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  const table = askFlagTable();
  return runGroup('ask', ['ask', ...argv], ctx, { footer: providerFlagsHelp(), flags: { ask: table } }, (cli, start) => {
    const routings = routableProviders();
    const formers = formerAskFlags();
    withFlags(
      cli
        .command('ask [...question]', 'Answer a question about your infrastructure, write a plan (--maker) or apply one (--apply)')
        .usage('"<question>" [flags]  |  --maker "<request>"  |  --apply [--plan-file <path>]'),
      table,
    )
      .example('  assistant ask "how many instances are running and what is my balance?"')
      .example('  assistant ask --route-only -o json "is 1H100.80S.22V available in FIN-01?"')
      .example('  assistant ask --agent-trace --model gpt-4o "which volumes are not attached?"')
      .example('  assistant ask --new-conversation "which of my instances are idle?"')
      .example('  assistant --sandbox ask "what is my balance"')
      .example('  assistant ask --cloud-a "which ec2 instances are running?"')
      .example('  assistant ask --gpucloud --cloud-a "what am I paying for"')
      .example('  assistant ask --iam --ai-profile builtin')
      .example('  assistant ask --compliance -o json')
      .example('  assistant ask --discovery --workspace prod')
      .example('  assistant ask --terraform --workspace prod "what is deployed?"')
      .example('  assistant ask --terraform --terraform-plan --workspace prod "what would an apply change?"')
      .example('  assistant ask --postgres "which queries are blocked?"')
      .example('  assistant ask --apply --plan-file plan.json')
      .example('  cat plan.json | assistant ask --apply --destroyer')
      .example('  assistant ask --apply --dry-run --plan-file plan.json')
      .example('  assistant --sandbox ask --maker "create a 1V100.6V instance called train-1 in FIN-01" | assistant --sandbox ask --apply')
      .action((question: string[], opts: AskOptions) =>
        start(async () => {
          const { profile, maxHourlyCost: maxHourly } = opts;
          if (maxHourly !== undefined && !opts.apply) throw new UsageError('--max-hourly-cost goes with --apply', { hint: 'assistant ask --apply --max-hourly-cost 5 --plan-file plan.json' });
          const filesDir = filesFlag(opts.files, Boolean(opts.apply));
          const workspaceCode = { plan: Boolean(opts.terraformPlan), unsandboxed: Boolean(opts.unsandboxed) };
          if (opts.apply) {
            const flags: ApplyFlags = {
              destroyer: Boolean(opts.destroyer),
              resume: Boolean(opts.resume),
              fresh: Boolean(opts.fresh),
              allowDuplicateNames: Boolean(opts.allowDuplicateNames),
              allowUnpriced: Boolean(opts.allowUnpriced),
              filesDir,
              maxHourly,
              profile,
              workspaceCode,
            };
            return readPlanInput(ctx, applyPlanFile(question, opts.planFile), { strict: Boolean(opts.strict) }).then((input) => (opts.dryRun ? dryRunInput(ctx, input, flags) : applyInput(ctx, input, flags)));
          }
          const report = reportKind(opts);
          if (opts.roleArn !== undefined && report !== 'iam') throw new UsageError('--role-arn narrows the IAM report', { hint: 'use it with --iam' });
          if (question.length === 0 && !report) throw new UsageError('no question given', { hint: "run 'assistant ask --help'" });
          const text = question.length ? question.join(' ') : await reportQuestion(report!);
          const on = (name: string) => declared(opts, optionKey(name), flag.bool()) === true;
          const formerly = formers.filter((r) => on(r.former));
          for (const r of formerly) warn(ctx, `--${r.former} is --${r.flag} here (the original tool's name still works)`);
          const providerFlags = routings.filter((r) => on(r.flag) || formerly.some((f) => f.provider === r.provider)).map((r) => r.provider);
          if (opts.routeOnly) return routeOnly(ctx, text, providerFlags);
          const autostop = policyFromFlags(opts.autostop, opts.autostopAction);
          if (autostop && !opts.maker) throw new UsageError('--autostop goes with --maker (or deploy): it arranges the auto-stop of the instances a plan creates', { hint: 'assistant ask --maker --autostop 30m "create a 1V100.6V instance called train-1"' });
          if (opts.maker) return maker(ctx, text, Boolean(opts.destroyer), aiFlags(opts, ctx.env), providerFlags, profile, autostop);
          return ask(ctx, text, report ? ['cloud_a'] : providerFlags, aiFlags(opts, ctx.env), {
            agentTrace: Boolean(opts.agentTrace),
            history: opts.history !== false,
            newConversation: Boolean(opts.newConversation),
            report,
            profile,
            workspace: opts.workspace,
            roleArn: opts.roleArn,
            workspaceCode,
          });
        }),
      );
  });
}

/** The help's line for the per-provider flags (one per provider questions can be routed to). */
function providerFlagsHelp(): string {
  return `Which provider to ask (several give a combined view; default: inferred from the question):\n  ${routableProviders().map((r) => `--${r.flag}`).join(', ')}`;
}

/**
 * ASK_FLAGS and the flags from the manifest (not in AskOptions: read with `declared`), all left out of --help:
 * a switch per provider questions can be routed to (its `routing` capability, listed once in the help's
 * footer; from the registry's manifest, so registering them loads no provider) and its former name (the
 * original tool's --aws, --verda, --github… keep scripts working), and the per-vendor model and key flags
 * of earlier releases (--model and --api-key-env say the same for any profile).
 */
function askFlagTable(): FlagSpec {
  const table: FlagSpec = { ...ASK_FLAGS };
  for (const r of routableProviders()) table[optionKey(r.flag)] = flag.bool().option(`--${r.flag}`, `${HIDDEN_FLAG}Ask about ${r.provider} (several give a combined view; default: inferred from the question)`);
  for (const r of formerAskFlags()) table[optionKey(r.former)] = flag.bool().option(`--${r.former}`, `${HIDDEN_FLAG}The original tool's name of --${r.flag}`);
  for (const kind of AI_PROVIDER_KINDS) table[optionKey(`${kind}-model`)] = flag.text().option(`--${kind}-model <name>`, `${HIDDEN_FLAG}Model of the ${kind} AI provider`);
  for (const kind of KEYED_KINDS) table[optionKey(keyFlagName(kind))] = flag.text().option(`--${keyFlagName(kind)} <key>`, `${HIDDEN_FLAG}API key of the ${kind} AI provider (beats the config; prefer api_key_env)`);
  return table;
}

/** The one report asked for (`--iam`, `--compliance`, `--discovery`), or none; two at once is a usage error. */
function reportKind(opts: AskOptions): ReportKind | undefined {
  const asked = (['iam', 'compliance', 'discovery'] as const).filter((k) => opts[k] === true);
  if (asked.length > 1) throw new UsageError(`--${asked.join(' and --')} are separate reports`, { hint: 'ask for one report at a time' });
  return asked[0];
}

/** `ask "<question>"`: the answer streams to stdout as it arrives; diagnostics go to stderr. */
interface AskRunFlags {
  agentTrace: boolean;
  history: boolean;
  newConversation: boolean;
  report?: ReportKind;
  profile?: string;
  workspace?: string;
  roleArn?: string;
  workspaceCode: { plan: boolean; unsandboxed: boolean };
}

async function ask(
  ctx: CommandContext,
  question: string,
  providerFlags: string[],
  ai: AiFlags,
  { agentTrace, history, newConversation, report, profile, workspace, roleArn, workspaceCode }: AskRunFlags,
): Promise<number> {
  return withSession(ctx, async (opened) => {
    // --workspace names the terraform workspace the terraform reads use (as if it were the default), and
    // a question nothing else claims goes to terraform.
    const session = workspace ? { ...opened, config: { ...opened.config, terraform: { ...opened.config.terraform, default_workspace: workspace } } } : opened;
    if (workspace && !report && !providerFlags.length && (await routeQuestion(question, { config: session.config, routings: await providerRoutings() })).defaulted) providerFlags = ['terraform'];
    const reportOptions = { backend: session, env: ctx.env, signal: ctx.signal, profile, roleArn, workspace };
    let structuredReport: unknown;
    // --agent-trace prints the same phases as lines; the spinner would only fight with them.
    const spinner = agentTrace ? undefined : createPhaseSpinner(ctx.io);
    const out = createAnswerPrinter(ctx.out, spinner);
    const debug = ctx.debug.callback;
    const actors = report ? await reportActors(report, reportOptions, (r) => (structuredReport = r)) : await workspaceActors(reportOptions);
    const result = await askQuestion(
      {
        question,
        providers: providerFlags,
        history,
        newConversation,
        context: cliAskContext(ctx, session, { profile: ai.aiProfile, modelOverrides: ai.modelOverrides, keyFlags: ai.keyFlags }),
      },
      { observe: cliAskObserver(ctx, { phases: ASK_PHASES, spinner, out: ctx.out.structured ? undefined : out, agentTrace, debug }), actors },
    ).catch((err: unknown) => {
      spinner?.stop();
      out.endLine();
      throw err;
    });
    spinner?.stop();
    const doc = {
      question,
      ...(report ? { report: structuredReport } : {}),
      answer: result.answer,
      providers: result.route.providers,
      ai_provider: result.provider,
      model: result.model,
      summarised: result.summarised,
      context_chars: result.contextChars,
      prompt_chars: result.promptChars,
    };
    // People got the answer as it streamed; a provider that answered without streaming still gets it printed.
    ctx.out.value(doc, { table: '', withTable: () => out.finish(result.answer) });
    return ExitCode.ok;
  }, { profile, workspaceCode });
}

/** `ask --route-only`: the routing decision with the matched terms; nothing is read and no AI is asked. */
async function routeOnly(ctx: CommandContext, question: string, providerFlags: string[]): Promise<number> {
  const { config, warnings } = await loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
  for (const w of warnings) warn(ctx, w);
  const route = await routeQuestion(question, { flags: providerFlags, config, routings: await providerRoutings() });
  // A provider that needs a setting to choose its reads (repohost.owner/repo) does not stop the routing answer.
  let contextKinds: string[] = [];
  let contextError: string | undefined;
  try {
    contextKinds = (await contextPlanFor(route, { question, config })).kinds;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    contextError = err.message;
  }
  const doc = { question, ...route, context_kinds: contextKinds, ...(contextError ? { context_error: contextError } : {}) };
  const columns = [
    { header: 'PROVIDER', path: 'provider', priority: 9 },
    { header: 'MATCHED TERMS', path: 'terms', priority: 8 },
    { header: 'NOTE', path: 'note', priority: 3 },
  ];
  const lines = [ctx.out.table(route.reasons, columns).trimEnd()];
  if (contextKinds.length) lines.push(`context read: ${contextKinds.join(', ')}`);
  if (contextError) lines.push(`context read: none yet (${contextError})`);
  ctx.out.value(doc, { table: lines.join('\n') + '\n' });
  return ExitCode.ok;
}

async function maker(ctx: CommandContext, question: string, destroyer: boolean, ai: AiFlags, providerFlags: string[], profile?: string, autostop?: AutostopPolicy): Promise<number> {
  return withSession(ctx, async (session) => {
    const spinner = createPhaseSpinner(ctx.io);
    const plan = await makePlanFromQuestion(ctx, session, question, { destroyer, ...ai, providerFlags, autostop, onPhase: (text) => spinner?.phase(text) }).finally(() =>
      spinner?.stop(),
    );
    // The writer reads the plan schema (zod): loaded here, so `ask --apply` does not load it.
    const { planText } = await import('../engine/core/plan/writer.js');
    ctx.out.text(planText({ ...plan, question: plan.question ?? question, created_at: plan.created_at ?? new Date().toISOString() }));
    return ExitCode.ok;
  }, { profile });
}
/** With --apply, the plan file: `--plan-file`, or the one word after the flags (`ask --apply plan.json`), or stdin. */
function applyPlanFile(words: readonly string[], planFile: string | undefined): string | undefined {
  if (!words.length) return planFile;
  if (words.length > 1 || planFile !== undefined) {
    throw new UsageError(`--apply takes one plan file, got ${[...words, ...(planFile ? [`--plan-file ${planFile}`] : [])].map((w) => JSON.stringify(w)).join(', ')}`, {
      hint: 'assistant ask --apply plan.json (or --plan-file plan.json, or the plan on stdin)',
    });
  }
  return words[0];
}

/** `--files DIR`: an existing directory, absolute; only with --apply. */
function filesFlag(v: string | undefined, apply: boolean): string | undefined {
  if (v === undefined) return undefined;
  if (!apply) throw new UsageError('--files goes with --apply', { hint: 'assistant ask --apply --files ./artefacts --plan-file plan.json' });
  const dir = resolve(v);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--files ${v} is not a directory`, { hint: 'give the directory that holds the files the plan uploads' });
  return dir;
}
