/**
 * The MCP tools: one table, each entry a producer of plans (or a pure decision) over the same engine
 * the CLI uses. Tool handlers never call HTTP: reads and changes are plans run through the executor,
 * the destroyer gate is the plan engine's, and every result is redacted before it leaves the server.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { parse as parseYaml } from 'yaml';
import { parseStrictJson } from '../engine/core/plan/strict-json.js';
import { readPlanDocument } from '../engine/core/plan/document.js';
import type { z } from 'zod';
import type { Config } from '../schemas/config.js';
import * as S from '../schemas/mcp-tools.js';
import { forAgents, hintLinesForAgents } from './hints.js';
import { AssistantError, InvalidInputError } from '../engine/core/errors.js';
import { applyPlan, budgetLimit, previewPlan, readPlan, readResult, type BudgetLimit } from '../machines/apply/index.js';
import { createDeadline } from '../engine/core/deadline.js';
import { checkForPreview } from '../engine/core/plan/check.js';
import { readAccountCost } from '../machines/cost/cost.js';
import { getRecord, listRecords } from '../machines/records/records.js';
import { sortResources } from '../engine/producers/cost/live.js';
import { describeConflict } from '../engine/core/plan/names.js';
import { renderPreview } from '../engine/core/plan/preview.js';
import type { PlanBackend } from '../machines/run/run-plan.js';
import { formatProblems } from '../engine/core/plan/validate.js';
import { maskSecretLooking, maskSecretsInText, redactText } from '../engine/core/redact.js';
import { renderRecords, renderRecord, tableAt } from '../engine/core/render/records.js';
import { renderReport, renderReportError } from '../engine/core/render/report.js';
import { routeQuestion } from '../engine/core/routing/route.js';
import { PROVIDERS, providerRoutings, providerWith } from '../engine/providers/index.js';
import { askForTool } from './ask.js';
import { runAutostopCheck } from '../machines/autostop/check.js';
import { renderCheckTable, summaryLine } from '../engine/producers/autostop/render.js';
import { driftTool, graphTool, matrixTool, trendTool } from './insight.js';
import type { McpBackend } from './backend.js';
import { progressObserver, progressReporter, type ProgressFn, type ToolExtra } from './progress.js';
import { formatAmount, formatRate } from '../engine/core/render/money.js';

export type { McpBackend };

interface ToolCall {
  backend: McpBackend;
  signal: AbortSignal;
  /** Reports progress to a client that asked for it (a no-op otherwise). */
  progress: ProgressFn;
}

interface ToolOutcome<O extends z.ZodRawShape> {
  text: string;
  structured: z.infer<z.ZodObject<O>>;
  /** A finished call that still failed (a plan run that stopped on an error). */
  isError?: boolean;
}

interface ToolDef<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  run(args: z.infer<z.ZodObject<I>>, call: ToolCall): Promise<ToolOutcome<O>>;
}

/** Keeps each entry's input and output types tied together inside the heterogeneous table. */
function tool<I extends z.ZodRawShape, O extends z.ZodRawShape>(def: ToolDef<I, O>): ToolDef<z.ZodRawShape, z.ZodRawShape> {
  return def as unknown as ToolDef<z.ZodRawShape, z.ZodRawShape>;
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const TEXT_WIDTH = 160;

/**
 * A plan as an agent sent it, in the one form the engine runs: bodies written as objects and the
 * original tool's plans are read as plan files are (engine/core/plan/document.ts); what would change
 * what runs (a non-empty stdin) is refused.
 */
function planFrom(input: string | Record<string, unknown>): unknown {
  const doc = readPlanDocument(planValue(input), { former: PROVIDERS.formerNames() });
  if (doc.problems.length) throw new InvalidInputError('invalid_plan', `the plan is invalid; nothing was sent:\n${formatProblems(doc.problems)}`);
  return doc.plan;
}

/**
 * Agents send plans as objects or as JSON/YAML text. Text is read strictly, like plan files: a key
 * repeated in one object is refused (strict JSON; YAML's uniqueKeys), and so is U+FFFD, which is what
 * invalid UTF-8 in the request became before it reached us.
 */
function planValue(input: string | Record<string, unknown>): unknown {
  if (typeof input !== 'string') return input;
  if (input.includes('\uFFFD')) {
    throw new InvalidInputError('invalid_plan', 'the plan text contains U+FFFD (the replacement character): it was probably not valid UTF-8');
  }
  const json = parseStrictJson(input);
  if ('value' in json) return json.value;
  if (!json.problem.startsWith('not valid JSON')) throw new InvalidInputError('invalid_plan', `the plan text is not a plan: ${json.problem}`);
  try {
    return parseYaml(input, { uniqueKeys: true });
  } catch (err) {
    throw new InvalidInputError('invalid_plan', `the plan text is neither JSON nor YAML: ${(err as Error).message}`);
  }
}

/**
 * The server's budget (config budget.max_hourly), tightened by the agent's max_hourly_cost: an agent
 * may lower the limit for its own plan, never raise the owner's.
 */
function mcpBudget(config: Config, asked: number | undefined): BudgetLimit | undefined {
  const own = config.budget?.max_hourly;
  // An agent may lower the server's limit, never raise it, and cannot allow unpriced creates (a person can, with --allow-unpriced).
  return budgetLimit(asked !== undefined && (own === undefined || asked < own) ? { max: asked, from: 'max_hourly_cost' } : undefined, own);
}

// Prices through the one formatter (engine/core/render/money.ts): amounts in cents, rates to 4 decimals.
const money = (v: number | null) => (v === null ? '-' : formatAmount(v));
const rate = (v: number | null) => (v === null ? '-' : formatRate(v));
const hoursFigure = (h: number) => h.toFixed(1);

/**
 * gpucloud's records (its kinds, list plans and name lookup) through the registry, as the CLI's
 * `gpucloud list|get` use them (machines/records/): read when the tool table is made, since the list
 * tool's description names the kinds.
 */
const gpucloudRecords = (await providerWith('records', 'gpucloud'))!.capabilities.records;

export const TOOLS = [
  tool({
    name: 'assistant_gpucloud_ask',
    title: 'Ask about gpucloud infrastructure',
    description:
      'Answer a question about the gpucloud account in plain language ("which of my H100 instances are running?", "what is my balance?"). Reads the relevant resources with read-only requests and has the configured AI provider answer from them. Never changes anything.',
    input: S.AskInput,
    output: S.AskOutput,
    annotations: { ...READ_ONLY, idempotentHint: false },
    run: ({ question }, { backend, signal, progress }) => askForTool(backend, question, signal, progress),
  }),
  tool({
    name: 'assistant_gpucloud_list',
    title: 'List gpucloud resources',
    description: `List gpucloud resources of one kind. Kinds: ${gpucloudRecords.kinds().join(', ')}. Returns a table as text and the API records as structured content.`,
    input: S.ListInput,
    output: S.ListOutput,
    annotations: READ_ONLY,
    async run({ resource }, { backend, signal }) {
      const { kind, data, items: raw } = await listRecords(gpucloudRecords, (plan) => readResult(backend, plan, { signal }), resource);
      // Masked once here: the table (renderRecords) and the server's mask on the way out (registerTools)
      // are handed the masked records, which the masker knows and returns as they are (engine/core/redact.ts).
      const items = maskSecretLooking(raw);
      // (No data is still drawn as the table draws it: renderRecords shows a row of it, not "No resources found".)
      return { text: renderRecords(data === undefined || data === null ? data : items, kind, 'table', TEXT_WIDTH), structured: { resource: kind.kind, count: items.length, items } };
    },
  }),
  tool({
    name: 'assistant_gpucloud_get',
    title: 'Get one gpucloud resource',
    description:
      'Fetch one gpucloud resource by ID, or by hostname/name (instances, clusters, volumes, containers, jobs, …). An ambiguous name is an error listing the matching IDs.',
    input: S.GetInput,
    output: S.GetOutput,
    annotations: READ_ONLY,
    async run({ kind, id_or_hostname }, { backend, signal }) {
      const got = await getRecord(gpucloudRecords, (plan) => readResult(backend, plan, { signal }), kind, id_or_hostname);
      return { text: renderRecord(got.record, 'yaml'), structured: { kind: got.kind.kind, record: got.record } };
    },
  }),
  tool({
    name: 'assistant_route_question',
    title: 'Show how a question would be routed',
    description:
      'Report which provider(s) a question would go to and why (the matched terms, or the default provider), and which gpucloud resource kinds it is about. Executes nothing.',
    input: S.RouteInput,
    output: S.RouteOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run({ question }, { backend }) {
      const decision = routeQuestion(question, { config: backend.config, routings: await providerRoutings() });
      const lines = decision.reasons.map((r) => `${r.provider}: ${r.terms.length ? `matched ${r.terms.map((t) => `"${t}"`).join(', ')}` : r.note ?? ''}`);
      if (decision.kinds.length) lines.push(`gpucloud kinds: ${decision.kinds.join(', ')}`);
      return { text: lines.join('\n') + '\n', structured: decision };
    },
  }),
  tool({
    name: 'assistant_cost_summary',
    title: 'What the account costs',
    description:
      'What the gpucloud account burns per hour, per day and per 30 days, the balance and how long it lasts (runway), from live prices: instances at their contract price, spot at the spot price, volumes by size and type, clusters. With detail: true, every billable resource with its hourly cost, age and cost so far. Offline (shut-down) instances still bill. Read-only.',
    input: S.CostInput,
    output: S.CostOutput,
    annotations: READ_ONLY,
    async run({ detail }, { backend, signal }) {
      const s = await readAccountCost(backend, { home: backend.home, env: backend.env, sandbox: backend.sandbox, signal });
      const cur = s.currency.toUpperCase();
      const lines = [
        `Burn: ${rate(s.hourly_cost)} ${cur}/hour (${money(s.daily_cost)} per day, ${money(s.monthly_forecast)} per 30 days)`,
        `Balance: ${money(s.balance)} ${cur}`,
        `Runway: ${s.runway_hours === null ? 'unlimited (nothing bills)' : `${hoursFigure(s.runway_hours)} h, until ${s.runway_until}`}`,
      ];
      const resources = sortResources(s.resources, 'cost');
      if (detail) for (const r of resources) lines.push(`- ${r.kind} ${r.name} (id ${r.id}, ${r.type}, ${r.status}): ${rate(r.hourly_cost)} ${cur}/hour, ${money(r.cost_so_far ?? null)} so far`);
      for (const u of s.unpriced) lines.push(`warning: ${u}; left out of the totals`);
      const { resources: _all, ...totals } = s;
      return { text: lines.join('\n') + '\n', structured: { ...totals, resource_count: s.resources.length, ...(detail ? { resources } : {}) } };
    },
  }),
  // Issue 31: drift and pictures (mcp/insight.ts); read-only.
  tool({
    name: 'assistant_plan_diff',
    title: 'Compare a plan with the live cloud (drift)',
    description:
      'Compare a plan document with what exists now, per resource: in_sync, missing (the plan makes it, it is not there) or different (type, location, size, image, status, attachment); with all: true also the resources in the project no step owns (unowned). structuredContent.drift is true when anything differs. Sends only GETs.',
    input: S.DiffInput,
    output: S.DiffOutput,
    annotations: READ_ONLY,
    run: ({ plan, all }, { backend, signal }) => driftTool(backend, planFrom(plan), all, signal),
  }),
  tool({
    name: 'assistant_plan_graph',
    title: 'Draw a plan as a graph',
    description: 'Draw a plan document as a graph: steps as nodes (destructive ones marked), bindings as edges (the step producing <NAME> to each step using it). Mermaid or Graphviz DOT for documentation, text for a terminal. Sends nothing.',
    input: S.GraphInput,
    output: S.GraphOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ plan, format }, { backend }) => graphTool(backend, planFrom(plan), format),
  }),
  tool({
    name: 'assistant_gpucloud_availability_matrix',
    title: 'Where each GPU type can be had, and its price',
    description: 'Instance types (or Instant Cluster types) × locations: in each cell the hourly price where the type is available now (on demand, and spot), else nothing. Read-only.',
    input: S.MatrixInput,
    output: S.MatrixOutput,
    annotations: READ_ONLY,
    run: ({ resource }, { backend, signal }) => matrixTool(backend, resource, signal),
  }),
  tool({
    name: 'assistant_cost_trend',
    title: 'Daily cost and runway over a range of days',
    description: 'What each day (UTC) cost (measured from recorded snapshots, else reconstructed) and the runway (balance over burn), as a text chart and as figures. Read-only (records a cost snapshot, like every cost reading).',
    input: S.TrendInput,
    output: S.TrendOutput,
    annotations: { ...READ_ONLY, idempotentHint: false },
    run: ({ start, end }, { backend, signal }) => trendTool(backend, { start, end }, signal),
  }),
  tool({
    name: 'assistant_plan_validate',
    title: 'Validate and preview a plan',
    description:
      'Validate a plan document as a whole (schema, step arguments, every <PLACEHOLDER> bound, destructive steps marked) and, when it is valid, preview it with read-only requests: each step, what it creates and its cost per hour and per 30 days, availability and the balance. Sends no change.',
    input: S.PlanInput,
    output: S.ValidateOutput,
    annotations: READ_ONLY,
    async run({ plan }, { backend, signal }) {
      const input = planFrom(plan);
      const { validation: v, previewable } = checkForPreview(input, { providers: await backend.providers.forPlan(input), predefined: backend.predefined });
      const destructiveSteps = v.destructive.flatMap((r, i) => (r.length ? [i] : []));
      const needsDestroyer = destructiveSteps.length > 0 && !backend.destroyer;
      if (!previewable) {
        return {
          text: `invalid plan:\n${formatProblems(v.problems)}\n`,
          structured: { valid: false, problems: v.problems, destructive_steps: destructiveSteps, needs_destroyer: needsDestroyer },
        };
      }
      const { preview, duplicateNames } = await previewPlan(backend, previewable, { destroyer: backend.destroyer, signal, budget: mcpBudget(backend.config, undefined) });
      let note = needsDestroyer ? 'note: this plan has destructive steps; this server refuses to apply them (it was not started with --destroyer)\n' : '';
      if (duplicateNames.length) {
        note += `note: names that already exist (applying is refused unless allow_duplicate_names is true):\n${duplicateNames.map((c) => `  ${describeConflict(c)}`).join('\n')}\n`;
      }
      return {
        text: `valid plan\n${renderPreview(preview)}${note}`,
        structured: { valid: true, problems: [], destructive_steps: destructiveSteps, needs_destroyer: needsDestroyer, duplicate_names: duplicateNames, preview },
      };
    },
  }),
  tool({
    name: 'assistant_plan_apply',
    title: 'Apply a plan',
    description:
      'Apply a plan document through the plan engine and return the run report. The whole plan is validated before the first request; destructive plans are refused unless the server was started with --destroyer. Creates are de-duplicated, and an unfinished run of the same plan is never repeated silently: pass mode "resume" to continue it or "fresh" to start over. Validate with assistant_plan_validate first.',
    input: S.ApplyInput,
    output: S.ApplyOutput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    async run({ plan, mode, allow_duplicate_names, max_hourly_cost }, { backend, signal, progress }) {
      const outcome = await applyPlan(planFrom(plan), {
        backend,
        home: backend.home,
        destroyer: backend.destroyer,
        mode,
        allowDuplicateNames: allow_duplicate_names,
        budget: mcpBudget(backend.config, max_hourly_cost),
        signal,
        observer: progressObserver(progress),
      });
      const { report } = outcome;
      return { text: renderReport(report) + renderReportError(report), structured: report, isError: outcome.exitCode !== 0 };
    },
  }),
  // ---- idle auto-stop (issue 31 §2): the check's decisions as a dry run -------------------------
  tool({
    name: 'assistant_autostop_status',
    title: 'Which instances are idle (auto-stop)',
    description:
      "For every gpucloud instance created with auto-stop: how long its GPUs and logins have been idle (read over SSH from its watcher's record), its policy, and what `assistant autostop check` would do (keep, shutdown, hibernate, delete, or nothing because it could not be read). A dry run: sends no action. The server itself runs the check when configured (autostop.check_every).",
    input: S.AutostopStatusInput,
    output: S.AutostopStatusOutput,
    annotations: { ...READ_ONLY, idempotentHint: false },
    async run(_args, { backend, signal }) {
      const result = await runAutostopCheck(backend, { home: backend.home, dryRun: true, signal });
      const text = renderCheckTable(result.instances, tableAt(TEXT_WIDTH)) + summaryLine(result.instances, true) + '\n';
      return { text, structured: { checked_at: result.checked_at, allow_delete: result.allow_delete, allow_hibernate: result.allow_hibernate, instances: result.instances } };
    },
  }),
  // ---- credentials (issue 26): a check, never a value -------------------------------------------
  tool({
    name: 'assistant_credentials_test',
    title: 'Check that the credentials work',
    description:
      "Check that this server's gpucloud credentials work: reads the balance with them and says where they came from (config file, environment, credentials file, or the team's credential backend). Returns no credential value, ever.",
    input: S.CredentialsTestInput,
    output: S.CredentialsTestOutput,
    annotations: READ_ONLY,
    async run({ provider }, { backend, signal }) {
      // The provider's own check (its `credentials.test`): gpucloud reads the balance with a fresh token.
      const { detail, data } = await (await providerWith('credentials', provider))!.capabilities.credentials.test!((plan) => readPlan(backend, plan, { signal }));
      const balance = (data as { balance?: unknown } | undefined)?.balance;
      const source = (await backend.credentialSource?.(provider)) ?? 'unknown';
      const text = `${provider} credentials work (source: ${source}); ${detail}\n`;
      return { text, structured: { provider, ok: true, source, balance } };
    },
  }),
];

/** Where an error result carries its code and hint for programs (`_meta`, since the SDK client checks
 * `structuredContent` against the tool's output schema even on errors). */
export const ERROR_META_KEY = 'assistant.dev/error';

/**
 * A request's one deadline: the client's cancel (notifications/cancelled, a closed connection) and the
 * server's per-request timeout (`--timeout` / config `timeout`), under the server's own life.
 */
function requestSignal(backend: McpBackend, cancel: AbortSignal): AbortSignal {
  if (backend.requestTimeoutS === undefined) return cancel;
  const deadline = createDeadline(cancel);
  deadline.arm(backend.requestTimeoutS, 'the MCP server\'s per-request timeout');
  return deadline.signal;
}

/** Turns any failure into a tool error result (isError) with the code and hint; never a protocol error, never a secret. */
export function toolErrorResult(err: unknown): CallToolResult {
  const error =
    err instanceof AssistantError
      ? { code: err.code, message: redactText(err.message), ...(err.hint ? { hint: forAgents(redactText(err.hint)) } : {}) }
      : { code: 'internal', message: redactText(err instanceof Error ? err.message : String(err)) };
  const text = `error: ${error.code}: ${error.message}${error.hint ? `\nhint: ${error.hint}` : ''}`;
  return { isError: true, content: [{ type: 'text', text }], _meta: { [ERROR_META_KEY]: error } };
}

/** The tools a server with these options offers; --read-only keeps only those annotated readOnlyHint. */
export function offeredTools(opts: { readOnly?: boolean }): readonly ToolDef<z.ZodRawShape, z.ZodRawShape>[] {
  return opts.readOnly ? TOOLS.filter((def) => def.annotations.readOnlyHint === true) : TOOLS;
}

export function registerTools(server: McpServer, backend: McpBackend): void {
  for (const def of offeredTools(backend)) {
    server.registerTool(
      def.name,
      { title: def.title, description: def.description, inputSchema: def.input, outputSchema: def.output, annotations: def.annotations },
      async (args: Record<string, unknown>, extra: ToolExtra): Promise<CallToolResult> => {
        const progress = progressReporter(extra);
        const started = performance.now();
        let outcome = 'ok';
        try {
          const out = await def.run(args as never, { backend, signal: requestSignal(backend, extra.signal), progress: progress.report });
          if (out.isError) outcome = 'failed';
          // An agent reads what a person reads over a shoulder: the one masker, as the CLI's tables use it
          // (secret-named fields, and secret-looking text such as `export HF_TOKEN=hf_…` in a startup script).
          // A failed run's report carries the CLI's hint: reworded for the agent, in the text and the document.
          const structured = maskSecretLooking(out.structured) as Record<string, unknown>;
          const error = structured.error as { hint?: unknown } | undefined;
          if (error && typeof error.hint === 'string') error.hint = forAgents(error.hint);
          return {
            content: [{ type: 'text', text: hintLinesForAgents(maskSecretsInText(out.text)) }],
            structuredContent: structured,
            isError: out.isError || undefined,
          };
        } catch (err) {
          const result = toolErrorResult(err);
          outcome = `error ${(result._meta?.[ERROR_META_KEY] as { code: string }).code}`;
          return result;
        } finally {
          await progress.stop();
          backend.log?.(`tool ${def.name} ${Math.round(performance.now() - started)} ms ${outcome}`);
        }
      },
    );
  }
}
