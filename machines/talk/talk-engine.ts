/**
 * One turn of a `talk` session: a question, a slash command, or a prompt for an external agent. The
 * same engine serves the terminal (commands/talk.ts) and editors over ACP (commands/acp.ts); each
 * gives it a TurnIo that says how answers, results, progress and confirmations reach its user.
 *
 * Everything is the CLI's own flow, not a copy: questions go through askQuestion (with this
 * conversation as history and this session's fresh reads), plans through makePlanFromQuestion and
 * dryRunPlan, and /apply through applyTalkPlan, the one place talk hands a plan to the apply path.
 * Each turn has its own signal (Ctrl-C, --timeout per turn, an editor's cancel) that every read,
 * AI call and run of the turn obeys.
 */
import { resolve } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import type { Plan } from '../../schemas/plan.js';
import type { RunReport } from '../../schemas/run-report.js';
import type { ChatMessage } from '../../engine/producers/ai/provider.js';
import { profileForCommand, selectAiProfile } from '../../engine/producers/ai/resolve.js';
import { AgentConversation } from '../../engine/producers/acp/conversation.js';
import { startAcpAgent } from '../../engine/producers/acp/client.js';
import { agentSandbox, containAgent, type AgentSandbox } from '../../engine/producers/acp/sandbox.js';
import { printable } from '../../engine/producers/acp/printable.js';
import { createControlStripper, stripControls } from '../../engine/core/render/sanitise.js';
import { writePrivateFile } from '../../engine/core/private-file.js';
import { planForWriting, planText } from '../../engine/core/plan/writer.js';
import type { AgentLaunch } from '../../engine/producers/acp/launch.js';
import { AssistantError, ExitCode, InterruptedError, isAbortError, OperationError, SafetyRefusal, UsageError } from '../../engine/core/errors.js';
import { checkPlan } from '../../engine/core/plan/check.js';
import { listerFor } from '../../engine/core/plan/names.js';
import { renderPreview, runwayText, type Preview } from '../../engine/core/plan/preview.js';
import type { RunObserver } from '../../engine/core/provider.js';
import { createRedactingStream, maskSecretsInText } from '../../engine/core/redact.js';
import { renderTable } from '../../engine/core/render/records.js';
import { renderReport, renderReportError } from '../../engine/core/render/report.js';
import type { Colors } from '../../engine/core/render/color.js';
import { routableProviders } from '../../engine/providers/index.js';
import { historyBudget, trimToBudget } from '../../engine/producers/talk/budget.js';
import { destroyTargets, type DestroyTarget } from '../../engine/producers/talk/destroy-targets.js';
import { helpText, parseInput, suggestCommand } from '../../engine/producers/talk/input.js';
import { ReadCache } from '../../engine/producers/talk/read-cache.js';
import type { ConversationStore, TalkTurn } from '../../engine/producers/talk/store.js';
import { answerWithoutModel, askQuestion, cloudReadContext } from '../ask/ask.js';
import { answerActor, recallFrom } from '../ask/ask-actors.js';
import type { AnswerThread } from '../../engine/core/capabilities.js';
import { derivedSignal } from '../../engine/core/deadline.js';
import { applyPlan, budgetLimit, dryRunPlan, planConsent, type ApplyMode, type BudgetLimit, type PlanConsent } from '../apply/index.js';
import type { PlanBackend } from '../run/run-plan.js';
import { makePlanFromQuestion } from '../make/make-plan.js';
import { ASK_PHASES } from '../ask/ask-phases.js';
import type { AskBackend, AskContext, AskAiChoice } from '../ask/ask-flow.js';
import { formatAmount } from '../../engine/core/render/money.js';

/**
 * What a talk session needs of the command that runs it (the terminal's `talk`, an editor's `acp`):
 * where it lives, its signal and switches, its debug writer, and how it reads a plan file.
 */
export interface TalkHost {
  home: string;
  env: Record<string, string | undefined>;
  /** The session's life (Ctrl-C, the editor closing); each turn has its own signal under it. */
  signal: AbortSignal;
  /** `--sandbox`: with no AI configured, the built-in answers and planner. */
  sandbox?: boolean;
  /** `--timeout` in seconds: bounds each AI call. */
  timeout?: number;
  /** `--config`: the file an external agent's sandbox hides. */
  configPath?: string;
  /** `--debug`'s (redacting) writer; none without --debug. */
  debug?: (line: string) => void;
  /** `/plan load FILE`: the plan file, read in the one form the engine runs (problems are exit 2). */
  readPlanFile(path: string): Promise<unknown>;
}

/** What /apply shows before asking, and what must be typed. */
export interface ApplyConfirmation {
  /** Per step, what its canonical request asks for and costs, then the plan's words (machines/apply/consent.ts). */
  consent: PlanConsent;
  /** Resources the plan destroys (names to type); empty for a plan that only reads, creates or changes. */
  destroys: DestroyTarget[];
  signal: AbortSignal;
}

/** How a turn reaches its user (the terminal, or an ACP client). */
export interface TurnIo {
  /** A piece of a streamed answer (already redacted). */
  token(text: string): void;
  /** The answer is complete: printed whole if nothing streamed, the line ended. */
  answerDone(answer: string): void;
  /** A result block: a table, a plan, a report. */
  result(text: string): void;
  /** A status line (what happened). */
  note(line: string): void;
  /** A suggestion of what to do next: shown to people, left out of scripted sessions. */
  tip(line: string): void;
  warn(line: string): void;
  /** What the turn is waiting for now (a spinner, an editor's tool call). */
  phase(text: string): void;
  phaseDone(): void;
  /** Colours for result blocks (none in a pipe or for an editor). */
  colors: Colors;
  /** Table width. */
  columns: number;
  /** The observer of a plan run: each step as it starts and ends. */
  runObserver(): RunObserver & { stop(): void };
  /** Asks before applying; false means declined (nothing is sent). */
  confirmApply(c: ApplyConfirmation): Promise<boolean>;
  /** An external agent asks permission for a tool call: put to the user, never answered by itself. */
  permission(request: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionOutcome>;
  /** An external agent's update other than its message text (tool calls, plans). */
  agentUpdate(update: acp.SessionUpdate): void;
  /** Reports an error; returns its exit code. */
  error(err: unknown): number;
}

export interface TurnOutcome {
  code: number;
  /** /exit was typed. */
  exit?: boolean;
}

export interface TalkOptions {
  destroyer: boolean;
  aiProfile?: string;
  model?: string;
  providerFlags: string[];
  /** `--context-tokens`: the model's context window, when its name does not tell. */
  contextTokens?: number;
  /** How long a read is reused (ms); 0 reads afresh every time. */
  readsFreshMs: number;
  /** An external agent answers the prompts (ACP). */
  agent?: AgentLaunch;
  /** Where the agent runs (engine/producers/acp/sandbox.ts); required with `agent`. */
  agentSandbox?: AgentSandbox;
  /** Where relative paths of /plan save|load and /save are resolved, and the agent's working directory. */
  cwd: string;
}

export class TalkEngine {
  private plan: unknown;
  private readonly cache: ReadCache;
  /** What the last built-in answer was about: "which of them…" in the next question means these (offline, no model). */
  private readonly thread: AnswerThread = {};
  /** Notices already said this session (the built-in answers standing in for a model). */
  private readonly noticed = new Set<string>();
  private readonly conversation?: AgentConversation;
  private aiProfile?: string;
  private model?: string;
  private providerFlags: string[];
  private activeIo?: TurnIo;

  constructor(
    private readonly host: TalkHost,
    private readonly session: AskBackend,
    readonly store: ConversationStore,
    private readonly options: TalkOptions,
  ) {
    this.plan = store.plan();
    this.cache = new ReadCache(options.readsFreshMs);
    this.aiProfile = options.aiProfile;
    this.model = options.model;
    this.providerFlags = [...options.providerFlags];
    const launch = options.agent;
    if (launch) {
      this.conversation = new AgentConversation({
        start: () =>
          startAcpAgent({
            command: launch.command,
            args: launch.args,
            env: launch.env,
            // Its own sandbox and scratch folder on every start (a restart after a crash too).
            contained: containAgent(launch, options.agentSandbox ?? agentSandbox({ home: host.home, configPath: host.configPath })),
            signal: host.signal,
            model: this.model ?? launch.model,
            clientInfo: { name: 'assistant', version: '0.1.0' },
            onStderr: host.debug ? (line) => host.debug!(`agent: ${line}`) : undefined,
          }),
        transcript: () => this.transcript(),
        onStart: (agent, { restarted, replayed }) => {
          if (restarted) this.activeIo?.note(`the agent had stopped: started ${agent.name} again and handed it the conversation so far (${replayed} turn(s))`);
          else if (replayed) this.activeIo?.note(`handed ${agent.name} the conversation so far (${replayed} turn(s))`);
        },
      });
    }
  }

  /** The external agent, started at the beginning so a broken one is reported at once. */
  async start(): Promise<string | undefined> {
    if (!this.conversation) return undefined;
    const agent = await this.conversation.ensureStarted();
    return `${agent.name}${agent.version ? ` ${agent.version}` : ''}`;
  }

  async close(): Promise<void> {
    await this.conversation?.close();
  }

  async run(text: string, io: TurnIo, signal: AbortSignal): Promise<TurnOutcome> {
    const parsed = parseInput(text);
    if (parsed.kind === 'empty') return { code: ExitCode.ok };
    if (parsed.kind === 'unknown') {
      const near = suggestCommand(parsed.name);
      return { code: io.error(new UsageError(`unknown command /${parsed.name}`, { hint: near ? `did you mean /${near}? (/help lists them)` : '/help lists the commands' })) };
    }
    this.activeIo = io;
    try {
      switch (parsed.name) {
        case 'ask':
          return { code: this.conversation ? await this.agentTurn(parsed.arg, io, signal) : await this.ask(parsed.arg, io, signal) };
        case 'maker':
          return { code: await this.maker(parsed.arg, io, signal) };
        case 'dry-run':
          return { code: await this.dryRun(io, signal) };
        case 'apply':
          return { code: await this.apply(parsed.arg, io, signal) };
        case 'plan':
          return { code: await this.planCommand(parsed.arg, io) };
        case 'provider':
          return { code: this.providerCommand(parsed.arg, io) };
        case 'ai-profile':
          return { code: this.aiProfileCommand(parsed.arg, io) };
        case 'model':
          return { code: await this.modelCommand(parsed.arg, io) };
        case 'history':
          return { code: this.historyCommand(io) };
        case 'reset':
          return { code: await this.reset(io) };
        case 'save':
          return { code: this.save(parsed.arg, io) };
        case 'help':
          io.result(helpText());
          return { code: ExitCode.ok };
        case 'exit':
          return { code: ExitCode.ok, exit: true };
      }
      return { code: ExitCode.ok };
    } catch (err) {
      io.phaseDone();
      return { code: this.failure(err, io, signal) };
    } finally {
      this.activeIo = undefined;
    }
  }

  /** An error of a turn: a Ctrl-C says so in one line; a timeout or any other failure is reported as usual. */
  private failure(err: unknown, io: TurnIo, signal: AbortSignal): number {
    if (signal.aborted) {
      const reason: unknown = signal.reason;
      if (reason instanceof AssistantError && !(reason instanceof InterruptedError)) return io.error(reason);
      if (isAbortError(err) || reason instanceof InterruptedError || !(err instanceof AssistantError)) {
        io.note('interrupted: stopped by Ctrl-C; nothing more was sent');
        return ExitCode.interrupted;
      }
    }
    return io.error(err);
  }

  // ---- the conversation -------------------------------------------------------------------

  /** Earlier turns as chat messages for this model, oldest dropped first to fit its budget. */
  private contextMessages(model: string | undefined): ChatMessage[] {
    const messages = this.completeTurns().flatMap((t): ChatMessage[] => [
      { role: 'user', content: t.user },
      { role: 'assistant', content: t.assistant },
    ]);
    return trimToBudget(messages, historyBudget(model, this.options.contextTokens)).messages;
  }

  private completeTurns(): TalkTurn[] {
    return this.store.turns().filter((t) => !t.interrupted);
  }

  /** What a restarted agent is handed: the turns that fit its budget. */
  private transcript(): { user: string; assistant: string }[] {
    const kept = this.contextMessages(this.model ?? this.options.agent?.model);
    const out: { user: string; assistant: string }[] = [];
    for (let i = 0; i + 1 < kept.length; i += 2) out.push({ user: kept[i]!.content, assistant: kept[i + 1]!.content });
    return out;
  }

  /** What was typed, with anything secret-looking masked: it is neither sent nor saved. */
  private masked(text: string, io: TurnIo): string {
    const masked = maskSecretsInText(text);
    if (masked !== text) io.warn('a secret-looking value in what you typed was replaced by *** (it is not sent, saved or kept in the history)');
    return masked;
  }

  /** The flows' context for one turn: its backend and signal, the session's home, env and sandbox. */
  private askContext(backend: AskBackend, ai: AskAiChoice, signal: AbortSignal): AskContext {
    return { backend, home: this.host.home, env: this.host.env, signal, sandbox: this.host.sandbox, ai };
  }

  /** `--timeout` bounds each AI call of a question. */
  private callPolicy(): AskAiChoice['policy'] {
    return this.host.timeout ? { timeoutMs: this.host.timeout * 1000 } : undefined;
  }

  /** The session's backend with this turn's signal: every read and run of the turn obeys it. */
  private backend(signal: AbortSignal): AskBackend {
    const s = this.session;
    return { ...s, runContext: () => ({ ...s.runContext(), signal: derivedSignal(s.runContext().signal, signal) }) };
  }

  private async ask(question: string, io: TurnIo, signal: AbortSignal): Promise<number> {
    if (!question) throw new UsageError('/ask needs a question', { hint: 'just type the question, e.g. what is my balance?' });
    const text = this.masked(question, io);
    let streamed = '';
    const debug = this.host.debug;
    const hitsBefore = this.cache.hits;
    try {
      const result = await askQuestion(
        {
          question: text,
          providers: this.providerFlags,
          // The session keeps its own turns (recall below); the ask history file is neither read nor written.
          history: false,
          context: this.askContext(this.backend(signal), { profile: this.aiProfile, modelOverrides: this.modelOverrides(), policy: this.callPolicy(), builtinWhenUnconfigured: true }, signal),
        },
        {
          observe: (event) => {
            switch (event.type) {
              case 'ask.token':
                streamed += event.text;
                return io.token(event.text);
              case 'ask.phase': {
                const phase = ASK_PHASES[event.to];
                return phase ? io.phase(phase) : io.phaseDone();
              }
              case 'ask.progress':
                return io.phase(event.text);
              case 'ask.notice':
                // Said once a session: every turn would stand in for the same missing model.
                if (this.noticed.has(event.text)) return undefined;
                this.noticed.add(event.text);
                return io.note(event.text);
              case 'ask.debug':
                return debug?.(event.line);
              default:
                return undefined;
            }
          },
          actors: {
            recall: recallFrom((provider) => this.contextMessages(provider.model)),
            readContext: cloudReadContext({ runPlan: (plan, read) => this.cache.read(plan, read), thread: this.thread }),
            answer: answerActor((input) => answerWithoutModel(input.question, input.route, input.results, this.thread)),
          },
        },
      );
      io.phaseDone();
      io.answerDone(result.answer);
      if (this.cache.hits > hitsBefore) debug?.(`talk: ${this.cache.hits - hitsBefore} read(s) reused from this session (fresh for ${this.options.readsFreshMs / 1000} s)`);
      this.store.addTurn('ask', text, result.answer);
      return ExitCode.ok;
    } catch (err) {
      io.phaseDone();
      io.answerDone('');
      if (streamed) this.store.addTurn('ask', text, streamed, { interrupted: true });
      throw err;
    }
  }

  private async agentTurn(prompt: string, io: TurnIo, signal: AbortSignal): Promise<number> {
    if (!prompt) throw new UsageError('/ask needs a question');
    const text = this.masked(prompt, io);
    const out = createRedactingStream((t) => io.token(t));
    // The agent's text is sanitised as it streams (a sequence split over chunks included), before it is masked.
    const strip = createControlStripper();
    let shown = '';
    io.phase('waiting for the agent');
    try {
      const result = await this.conversation!.prompt(text, {
        signal,
        onUpdate: (update) => {
          io.phaseDone();
          if (update.sessionUpdate === 'agent_message_chunk') {
            if (update.content.type === 'text') {
              const text = strip.push(update.content.text);
              shown += text;
              out.write(text);
            }
          } else {
            // A tool call or plan between two pieces of text: what was held back for redaction is shown first.
            out.end();
            io.agentUpdate(update);
          }
        },
        onPermission: (request, questionSignal) => {
          io.phaseDone();
          out.end();
          return io.permission(request, questionSignal);
        },
      });
      out.end();
      io.phaseDone();
      io.answerDone(maskSecretsInText(stripControls(result.text)));
      const cancelled = result.stopReason === 'cancelled';
      this.store.addTurn('agent', text, stripControls(result.text), { interrupted: cancelled });
      if (cancelled) {
        io.note('interrupted: the agent was told to stop (session/cancel)');
        return ExitCode.interrupted;
      }
      if (result.stopReason !== 'end_turn') io.note(`the agent stopped: ${result.stopReason.replace(/_/g, ' ')}`);
      return ExitCode.ok;
    } catch (err) {
      out.end();
      io.phaseDone();
      io.answerDone('');
      if (shown) this.store.addTurn('agent', text, shown, { interrupted: true });
      if (err instanceof OperationError && err.code === 'agent_exited') {
        throw new OperationError(err.code, err.message, { hint: `${err.hint ? `${err.hint}; ` : ''}it is started again, with the conversation so far, at your next message` });
      }
      throw err;
    }
  }

  private modelOverrides(): Record<string, string> | undefined {
    if (!this.model) return undefined;
    const kind = this.selectedKind();
    return kind ? { [kind]: this.model } : undefined;
  }

  /** The profile name questions go to (`builtin` in the sandbox without AI config). */
  private profileName(): string | undefined {
    return profileForCommand(this.aiProfile, this.host.sandbox, this.session.config.ai);
  }

  private selectedKind(): string | undefined {
    const name = this.profileName();
    if (name === 'builtin') return undefined;
    return selectAiProfile(this.session.config.ai, name).kind;
  }

  // ---- plans ------------------------------------------------------------------------------

  private budget(): BudgetLimit | undefined {
    return budgetLimit(undefined, this.session.config.budget?.max_hourly);
  }

  private setPlan(plan: unknown, io: TurnIo): void {
    this.plan = plan;
    if (!this.store.setPlan(plan)) io.warn('the plan holds something secret-looking, so it is not saved with the session (--resume will not find it); save it with /plan save FILE');
  }

  private requirePlan(): unknown {
    if (this.plan === undefined) throw new UsageError('there is no plan in hand', { hint: 'make one with /maker <request>, or read one with /plan load FILE' });
    return this.plan;
  }

  private async maker(request: string, io: TurnIo, signal: AbortSignal): Promise<number> {
    if (!request) throw new UsageError('/maker needs a request', { hint: '/maker create a 1V100.6V instance called train-1 in FIN-01' });
    const text = this.masked(request, io);
    const backend = this.backend(signal);
    const made = await makePlanFromQuestion(this.askContext(backend, { profile: this.aiProfile, modelOverrides: this.modelOverrides() }, signal), text, {
      destroyer: this.options.destroyer,
      providers: this.providerFlags,
      onPhase: (t) => io.phase(t),
      onDebug: this.host.debug,
    });
    // In the form /plan save writes (bodies' keys sorted), so /apply and a later `ask --apply` of the saved file are one plan (one hash, one journal).
    const plan = planForWriting({ ...made, question: made.question ?? text, created_at: made.created_at ?? new Date().toISOString() }, { body: 'string' });
    io.phase('pricing the plan');
    const { preview, gated } = await dryRunPlan(backend, plan, { destroyer: this.options.destroyer, signal, budget: this.budget() });
    io.phaseDone();
    this.setPlan(plan, io);
    io.result(renderPlanSummary(plan, preview, io));
    for (const w of preview.warnings) io.warn(w);
    if (gated) io.note('note: this plan has destructive steps; applying it needs the session started with --destroyer');
    io.tip('next: /dry-run shows every request and the balance; /apply applies it; /plan save FILE keeps it');
    this.store.addTurn('maker', text, planDigest(plan, preview));
    return ExitCode.ok;
  }

  private async dryRun(io: TurnIo, signal: AbortSignal): Promise<number> {
    const plan = this.requirePlan();
    io.phase('reading prices, availability and the balance');
    const { preview, gated, duplicateNames, overBudget } = await dryRunPlan(this.backend(signal), plan, { destroyer: this.options.destroyer, signal, budget: this.budget() });
    io.phaseDone();
    io.result(renderPreview(preview).trimEnd());
    for (const w of preview.warnings) io.warn(w);
    if (gated) io.note('note: this plan has destructive steps; applying it needs the session started with --destroyer');
    this.store.addTurn('dry-run', '/dry-run', `Dry run of the plan in hand: ${preview.steps.length} step(s), ${formatAmount(preview.total_per_hour)}/hour${gated ? '; destructive' : ''}`);
    return gated || overBudget || duplicateNames.length ? ExitCode.refused : ExitCode.ok;
  }

  private async apply(arg: string, io: TurnIo, signal: AbortSignal): Promise<number> {
    const input = this.requirePlan();
    const mode: ApplyMode = arg === '--resume' ? 'resume' : arg === '--fresh' ? 'fresh' : 'new';
    if (arg && mode === 'new') throw new UsageError(`/apply takes --resume or --fresh, not "${arg}"`);
    const backend = this.backend(signal);
    const providers = await backend.providers.forPlan(input);
    // Checked with the destroyer allowed, to name what it destroys; the gate itself is applyPlan's.
    const { plan, classes } = checkPlan(input, { providers, destroyer: true, predefined: backend.predefined });
    const destructive = classes.some((c) => c.effect === 'destroy');
    if (destructive && !this.options.destroyer) {
      const steps = classes.flatMap((c, i) => (c.effect === 'destroy' ? [`step ${i}: ${c.reasons.join('; ')}`] : []));
      throw new SafetyRefusal(`the plan has destructive steps (${steps.join(', ')}); nothing was sent`, {
        hint: 'if the destruction is intended, start talk with --destroyer (assistant talk --destroyer --resume continues this conversation)',
      });
    }
    const destroys = destructive ? await destroyTargets(plan, classes, providers, listerFor((p) => backend.runContext().client(p), signal)) : [];
    // What is shown is computed from the requests, never taken from the plan's (a model's) words.
    io.phase('pricing the plan');
    const consent = await planConsent(backend, plan, { signal });
    io.phaseDone();
    if (!(await io.confirmApply({ consent, destroys, signal }))) {
      if (signal.aborted) throw new InterruptedError();
      io.note('not applied: nothing was sent');
      this.store.addTurn('apply', '/apply', 'Not applied (declined); nothing was sent.');
      return ExitCode.refused;
    }
    const observer = io.runObserver();
    let report: RunReport;
    let exitCode: number;
    try {
      ({ report, exitCode } = await applyTalkPlan(backend, plan, { home: this.host.home, destroyer: this.options.destroyer, mode, observer, signal, budget: this.budget() }));
    } finally {
      observer.stop();
      // Whatever happened, the cloud may have changed: the next question reads afresh.
      this.cache.clear();
    }
    io.result(renderReport(report, io.colors).trimEnd());
    const done = report.steps.filter((s) => s.status === 'succeeded').length;
    if (report.status === 'cancelled') {
      const inFlight = report.steps.find((s) => s.status === 'failed');
      io.note(
        `interrupted: ${done} of ${report.steps.length} step(s) completed before Ctrl-C${inFlight ? `; step ${inFlight.index} (${inFlight.request}) was in progress` : ''}; ` +
          'the journal keeps them: /apply --resume continues',
      );
    } else {
      const e = renderReportError(report).trimEnd();
      if (e) io.note(e);
    }
    this.store.addTurn('apply', mode === 'new' ? '/apply' : `/apply --${mode}`, `Applied the plan: ${report.status}, ${done} of ${report.steps.length} step(s) completed.`);
    return exitCode;
  }

  private async planCommand(arg: string, io: TurnIo): Promise<number> {
    const [sub = 'show', ...rest] = arg.split(/\s+/).filter(Boolean);
    const file = rest.join(' ');
    switch (sub) {
      case 'show':
        io.result(planText(this.requirePlan(), { keys: 'kept' }).trimEnd());
        return ExitCode.ok;
      case 'save': {
        if (!file) throw new UsageError('/plan save needs a file name', { hint: '/plan save plan.json' });
        // The plan as it is (it is what applies: its own key order, so its hash), so possibly with a secret in it: 0600, like every file that can hold one.
        writePrivateFile(this.path(file), planText(this.requirePlan(), { keys: 'kept' }));
        io.note(`plan saved to ${file}; apply it later with assistant ask --apply --plan-file ${file}`);
        return ExitCode.ok;
      }
      case 'load': {
        if (!file) throw new UsageError('/plan load needs a file name', { hint: '/plan load plan.json' });
        const input = await this.host.readPlanFile(this.path(file));
        checkPlan(input, { providers: await this.session.providers.forPlan(input), destroyer: true, predefined: this.session.predefined });
        this.setPlan(input, io);
        io.note(`plan loaded from ${file}: /dry-run shows it, /apply applies it`);
        return ExitCode.ok;
      }
      case 'drop':
        this.plan = undefined;
        this.store.setPlan(null);
        io.note('the plan in hand is dropped');
        return ExitCode.ok;
    }
    throw new UsageError(`unknown /plan subcommand "${sub}"`, { hint: '/plan show, /plan save FILE, /plan load FILE, /plan drop' });
  }

  private path(file: string): string {
    return resolve(this.options.cwd, file);
  }

  // ---- settings ---------------------------------------------------------------------------

  private providerCommand(arg: string, io: TurnIo): number {
    if (arg) {
      const wanted = arg.split(/[\s,]+/).filter(Boolean).map((p) => p.replace(/-/g, '_'));
      if (wanted.length === 1 && wanted[0] === 'auto') this.providerFlags = [];
      else {
        const routable = routableProviders().map((r) => r.provider);
        const unknown = wanted.filter((p) => !routable.includes(p));
        if (unknown.length) throw new UsageError(`unknown provider ${unknown.join(', ')}`, { hint: `providers: ${routable.join(', ')}, or auto` });
        this.providerFlags = wanted;
      }
    }
    io.note(`provider: ${this.providerFlags.length ? this.providerFlags.join(' + ') : 'auto (inferred from each question)'}`);
    return ExitCode.ok;
  }

  private aiProfileCommand(arg: string, io: TurnIo): number {
    if (arg) {
      if (arg !== 'builtin') selectAiProfile(this.session.config.ai, arg); // an unknown profile fails here, with the configured ones named
      this.aiProfile = arg;
      this.model = undefined;
    }
    const name = this.profileName() ?? this.session.config.ai?.default_provider ?? 'openai';
    io.note(`AI profile: ${name}${this.model ? ` (model ${this.model})` : ''}${this.conversation ? '; questions go to the agent, /maker uses this profile' : ''}`);
    return ExitCode.ok;
  }

  private async modelCommand(arg: string, io: TurnIo): Promise<number> {
    if (this.conversation) {
      if (!arg) {
        io.note(`agent model: ${this.model ?? this.options.agent?.model ?? "the agent's default"}`);
        return ExitCode.ok;
      }
      const agent = await this.conversation.ensureStarted();
      if (!(await agent.setModel(arg))) {
        throw new UsageError(`${agent.name} offers no model "${arg}" over ACP`, { hint: 'set agent.model in the config: it is passed to the agent when it starts' });
      }
      this.model = arg;
      io.note(`agent model: ${arg}`);
      return ExitCode.ok;
    }
    if (arg) {
      if (this.profileName() === 'builtin') throw new UsageError('the built-in answerer has no model', { hint: 'choose an AI profile first: /ai-profile <name>' });
      this.model = arg === 'default' ? undefined : arg;
    }
    io.note(`model: ${this.model ?? 'the profile default'}`);
    return ExitCode.ok;
  }

  private historyCommand(io: TurnIo): number {
    const turns = this.store.turns();
    if (!turns.length) {
      io.note('no turns yet in this conversation');
      return ExitCode.ok;
    }
    const lines = turns.flatMap((t, i) => [
      `[${i + 1}] ${t.at.slice(0, 19).replace('T', ' ')} ${t.kind}${t.interrupted ? ' (interrupted)' : ''}`,
      `  you: ${t.user}`,
      ...t.assistant.split('\n').map((l, j) => (j === 0 ? `  assistant: ${l}` : `    ${l}`)),
    ]);
    io.result(lines.join('\n'));
    return ExitCode.ok;
  }

  private async reset(io: TurnIo): Promise<number> {
    this.store.reset();
    this.cache.clear();
    await this.conversation?.reset();
    io.note('the conversation is forgotten: the next question starts afresh (the plan in hand stays)');
    return ExitCode.ok;
  }

  private save(arg: string, io: TurnIo): number {
    if (arg) {
      const lines = [`# talk session ${this.store.id}`, ''];
      for (const t of this.store.turns()) lines.push(`**you** (${t.kind}): ${t.user}`, '', t.assistant, '');
      writePrivateFile(this.path(arg), lines.join('\n'));
      io.note(`transcript written to ${arg}`);
    }
    io.note(`this session is saved as it goes in ${this.store.path}; continue it with: assistant talk --resume ${this.store.id}`);
    return ExitCode.ok;
  }
}

/**
 * The one place talk applies a plan: the apply path every producer shares (validation, gate, budget,
 * duplicate names, journal and lock, then the run).
 */
export async function applyTalkPlan(
  backend: PlanBackend,
  plan: Plan,
  opts: { home: string; destroyer: boolean; mode: ApplyMode; observer: RunObserver; signal: AbortSignal; budget?: BudgetLimit },
): Promise<{ report: RunReport; exitCode: number }> {
  const outcome = await applyPlan(plan, { backend, home: opts.home, destroyer: opts.destroyer, mode: opts.mode, observer: opts.observer, signal: opts.signal, budget: opts.budget });
  return { report: outcome.report, exitCode: outcome.exitCode };
}

/** The plan as /maker shows it: one row per step, then what it costs. */
function renderPlanSummary(plan: Plan, preview: Preview, io: TurnIo): string {
  const rows = preview.steps.map((s) => ({ step: s.index, request: s.request, what: s.reason, destroys: s.destructive.length ? 'yes' : '' }));
  const columns = [
    { header: 'STEP', path: 'step', priority: 9 },
    { header: 'REQUEST', path: 'request', priority: 8 },
    { header: 'WHAT', path: 'what', priority: 7 },
    ...(rows.some((r) => r.destroys) ? [{ header: 'DESTRUCTIVE', path: 'destroys', priority: 9 }] : []),
  ];
  const lines = [`Plan: ${plan.summary ?? plan.question ?? `${plan.commands.length} step(s)`}`, renderTable(rows, columns, io.columns, { colors: io.colors }).trimEnd()];
  if (preview.costs.length) lines.push(`Cost: ${formatAmount(preview.total_per_hour)}/hour, ${formatAmount(preview.total_per_30_days)}/30 days`);
  else lines.push('Cost: nothing new is billed by this plan');
  if (preview.balance) lines.push(`Balance: ${formatAmount(preview.balance.amount)} ${preview.balance.currency.toUpperCase()}${preview.balance.hours_covered === undefined ? '' : ` (covers ${preview.balance.hours_covered.toFixed(1)} hours of it)`}`);
  if (preview.runway) lines.push(`Runway: ${runwayText(preview.runway)}`);
  return lines.join('\n');
}

/** What the conversation remembers of a plan (so "what does it cost?" can be asked next). */
function planDigest(plan: Plan, preview: Preview): string {
  const steps = preview.steps.map((s) => `${s.index}. ${s.request} (${s.reason})`).join('; ');
  return `Made a plan: ${plan.summary ?? plan.question ?? ''}. Steps: ${steps}. Cost: ${formatAmount(preview.total_per_hour)}/hour, ${formatAmount(preview.total_per_30_days)}/30 days. Not applied yet.`;
}
