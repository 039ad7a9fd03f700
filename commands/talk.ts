/**
 * `assistant talk`: an interactive session. Questions are answered from live reads with the
 * conversation as memory, plans are made, priced, dry-run and (after a typed yes) applied, all by
 * slash command; with `--agent` (or `agent.path`) an external agent answers over ACP instead. The
 * turns themselves are machines/talk/talk-engine.ts; this file is the terminal: prompt, line editing,
 * history recall, Ctrl-C per turn, confirmations, and the scripted (no terminal) mode.
 */
import { resolve } from 'node:path';
import { ExitCode, InterruptedError, SafetyRefusal, UsageError } from '../engine/core/errors.js';
import type * as acp from '@agentclientprotocol/sdk';
import { resolveAgentLaunch } from '../engine/producers/acp/launch.js';
import { agentSandbox } from '../engine/producers/acp/sandbox.js';
import { sandboxAvailability } from '../engine/core/process/contain.js';
import { printable } from '../engine/producers/acp/printable.js';
import { redactText } from '../engine/core/redact.js';
import { namesMatch } from '../engine/producers/talk/destroy-targets.js';
import { MultiLine } from '../engine/producers/talk/input.js';
import { historyEntry, lineHistoryPath, loadLineHistory, saveLineHistory } from '../engine/producers/talk/line-history.js';
import { ConversationStore, listSessions } from '../engine/producers/talk/store.js';
import { createTalkTerminal, type TalkTerminal } from '../engine/producers/talk/terminal.js';
import { routableProviders } from '../engine/providers/index.js';
import { stderrColors, warn, type CommandContext } from './context.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { runGroup } from './group.js';
import { rawStream } from './terminal.js';
import { createAnswerPrinter, createPhaseSpinner, createRunObserver } from './progress.js';
import { reportError } from './report-error.js';
import { withSession } from './session.js';
import { createDeadline } from '../engine/core/deadline.js';
import { TalkEngine, type ApplyConfirmation, type TurnIo } from '../machines/talk/talk-engine.js';
import { talkHost } from './talk-host.js';
import { columnsOf } from '../engine/core/render/columns.js';

/** Seconds a read is reused within a session unless --reuse-reads-for says otherwise. */
const DEFAULT_REUSE_S = 60;

/** What `talk`'s flags are; TalkFlags is derived from it. */
const FLAGS = {
  talk: {
    /** `true` for the latest session, or an ID (prefix). */
    resume: flag.textOrBare().option('--resume [id]', 'Continue a saved session (the latest, or the one with this ID or ID prefix)'),
    list: flag.bool().option('--list', 'List the saved sessions'),
    destroyer: flag.bool().option('--destroyer', 'Allow /apply to run plans with destructive steps (you still type the names of what they destroy)'),
    aiProfile: flag.text().option('--ai-profile <name>', 'AI profile (ai.providers.<name>) or provider value; "builtin" answers and plans offline'),
    model: flag.text().option('--model <name>', "Model of the AI profile (or of the agent, when it offers a choice)"),
    /** Comma-separated provider names. */
    provider: flag.text().option('--provider <list>', `Where questions go: ${routableProviders().map((r) => r.provider).join(', ')} (comma-separated; default: inferred from each question)`),
    /** A name or path, `auto`, or `none`. */
    agent: flag.text().option('--agent <name>', 'Talk to an external agent over ACP: a path, a name on PATH, "auto", or "none" to answer by itself (default: agent.path in the config)'),
    unsandboxed: flag.bool().option('--unsandboxed', 'Where no sandbox can be made (no bubblewrap, no user namespaces), run the agent as a plain process that can read everything you can'),
    contextTokens: flag.number(0).option('--context-tokens <n>', "The model's context window in tokens, when its name does not tell (earlier turns get a quarter of it)"),
    reuseReadsFor: flag.number(0, { exclusiveMin: false }).option('--reuse-reads-for <seconds>', `How long a read of the cloud is reused within the session (default ${DEFAULT_REUSE_S}; 0: always read afresh)`),
  },
} satisfies Record<string, FlagSpec>;

type TalkFlags = OptionsOf<typeof FLAGS.talk>;

const PROMPT = 'talk> ';
const CONTINUATION = '...> ';

/** What `assistant talk --help` says after the commands. */
const FOOTER = [
  'In the session: a line is a question; /help lists the commands (/maker, /dry-run, /apply, /plan, /provider, /ai-profile, /model, /history, /reset, /save, /exit).',
  'Ctrl-C stops the answer or run in progress; Ctrl-C twice on an empty line, Ctrl-D or /exit ends the session. Without a terminal, stdin lines are answered in order.',
].join('\n');

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('talk', ['talk', ...argv], ctx, { footer: FOOTER, flags: FLAGS }, (cli, start) => {
    withFlags(
      cli
        .command('talk', 'An interactive session: questions with memory, plans made, dry-run and applied by slash command')
        .usage('[--resume [ID]] [--destroyer] [--ai-profile <name>] [--agent <name>]'),
      FLAGS.talk,
    )
      .example('  assistant talk')
      .example('  assistant --sandbox talk --ai-profile builtin')
      .example('  assistant talk --resume')
      .example('  assistant talk --destroyer')
      .example('  assistant talk --agent claude-code-acp')
      .example('  printf "what is my balance?\\n/maker create a 1V100.6V instance called t1 in FIN-01\\n" | assistant --sandbox talk')
      .action((opts: TalkFlags) => start(() => (opts.list ? list(ctx) : talk(ctx, opts))));
  });
}

async function list(ctx: CommandContext): Promise<number> {
  const sessions = listSessions(ctx.home);
  const columns = columnsOf([['ID', 'id', 9], ['STARTED (UTC)', 'started', 8], ['TURNS', 'turns', 7], ['FIRST', 'first', 5], ['AGENT', 'agent', 3]]);
  const rows = sessions.map((s) => ({ ...s, started: s.started.slice(0, 16).replace('T', ' ') }));
  ctx.out.value(sessions, {
    table: () => (rows.length ? ctx.out.table(rows, columns, { keep: 'id' }) : ''),
    withTable: () => rows.length || ctx.io.stderr.write('no saved talk sessions yet (assistant talk starts one)\n'),
  });
  return ExitCode.ok;
}

async function talk(ctx: CommandContext, opts: TalkFlags): Promise<number> {
  const contextTokens = opts.contextTokens;
  const reuseS = opts.reuseReadsFor ?? DEFAULT_REUSE_S;
  const providerFlags = opts.provider ? opts.provider.split(',').map((p) => p.trim().replace(/-/g, '_')).filter(Boolean) : [];
  const routable = routableProviders().map((r) => r.provider);
  const unknown = providerFlags.filter((p) => !routable.includes(p));
  if (unknown.length) throw new UsageError(`unknown provider ${unknown.join(', ')}`, { hint: `--provider takes ${routable.join(', ')}` });
  const cwd = resolve('.');

  // A long-lived session: --timeout bounds each turn, not the whole conversation.
  return withSession(
    ctx,
    async (session) => {
      const agent = opts.agent === 'none' ? undefined : resolveAgentLaunch({ flag: opts.agent, config: session.config.agent, env: ctx.env, cwd });
      if (agent && opts.unsandboxed && !sandboxAvailability(ctx.env).ok) warn(ctx, `the agent ${agent.name} runs unsandboxed (--unsandboxed): it can read everything you can, the assistant's config and environment included`);
      const store =
        opts.resume !== undefined
          ? ConversationStore.open(ctx.home, opts.resume === true ? undefined : opts.resume)
          : ConversationStore.create(ctx.home, { agent: agent?.name, aiProfile: opts.aiProfile, sandbox: ctx.globals.sandbox });
      if (store.skipped) warn(ctx, `${store.skipped} unreadable line(s) of ${store.path} were skipped`);
      const engine = new TalkEngine(talkHost(ctx), session, store, {
        destroyer: Boolean(opts.destroyer),
        aiProfile: opts.aiProfile,
        model: opts.model,
        providerFlags,
        contextTokens,
        readsFreshMs: reuseS * 1000,
        agent,
        agentSandbox: agentSandbox({ config: session.config.agent, home: ctx.home, configPath: ctx.globals.config, unsandboxed: Boolean(opts.unsandboxed) }),
        cwd,
      });
      const interactive = ctx.io.stdinIsTTY;
      const historyPath = lineHistoryPath(ctx.home);
      const term = createTalkTerminal({
        input: ctx.io.stdin,
        // readline edits the line with escape sequences of its own: it writes to the terminal under the
        // guard, and the terminal sanitises what it shows that is not ours (engine/producers/talk/terminal.ts).
        output: rawStream(ctx.io.stderr),
        interactive,
        history: interactive ? loadLineHistory(historyPath) : [],
        historyEntry,
        exitHint: '(to leave: Ctrl-C again, Ctrl-D or /exit)',
      });
      try {
        const agentName = await engine.start();
        if (interactive) banner(ctx, store, agentName, opts.resume !== undefined);
        return await loop(ctx, engine, term, historyPath, ctx.globals.timeout ?? session.config.timeout);
      } finally {
        term.close();
        await engine.close();
      }
    },
    { overallDeadline: false },
  );
}

function banner(ctx: CommandContext, store: ConversationStore, agentName: string | undefined, resumed: boolean): void {
  const c = stderrColors(ctx);
  const lines = [`${c.bold('assistant talk')} — session ${store.id}. Ask anything; /help lists the commands; Ctrl-D leaves.`];
  if (agentName) lines.push(`Answers come from the agent ${agentName} (ACP); /maker, /dry-run and /apply are the assistant's own.`);
  if (resumed) lines.push(`Resumed: ${store.turns().length} earlier turn(s)${store.plan() !== undefined ? ', and a plan in hand (/plan shows it)' : ''}.`);
  ctx.io.stderr.write(lines.join('\n') + '\n');
}

async function loop(ctx: CommandContext, engine: TalkEngine, term: TalkTerminal, historyPath: string, turnSeconds: number | undefined): Promise<number> {
  const multi = new MultiLine();
  let lastFailure: number = ExitCode.ok;
  for (;;) {
    if (ctx.interrupt.aborted) return ExitCode.interrupted;
    const input = await term.next(multi.pending ? CONTINUATION : PROMPT, { pending: multi.pending });
    if (input.type === 'eof' || input.type === 'exit') break;
    if (input.type === 'cancel') {
      multi.clear();
      continue;
    }
    const text = multi.add(input.text);
    if (text === undefined) continue;
    if (term.interactive) saveHistory(ctx, historyPath, term);

    const turn = new AbortController();
    // A session lives until the user ends it (ctx.interrupt); each turn has its own deadline.
    const deadline = createDeadline(AbortSignal.any([ctx.interrupt, turn.signal]));
    if (turnSeconds !== undefined) deadline.arm(turnSeconds, '--timeout, per turn');
    const signal = deadline.signal;
    const endBusy = term.busy(() => turn.abort(new InterruptedError('stopped by Ctrl-C')));
    let outcome;
    try {
      outcome = await engine.run(text, terminalIo(ctx, term), signal);
    } finally {
      endBusy();
    }
    if (outcome.exit) break;
    if (ctx.interrupt.aborted) return ExitCode.interrupted;
    if (outcome.code !== ExitCode.ok) lastFailure = outcome.code;
  }
  // A script learns whether every line went well; a person ending the session is not a failure.
  return term.interactive ? ExitCode.ok : lastFailure;
}

function saveHistory(ctx: CommandContext, path: string, term: TalkTerminal): void {
  try {
    saveLineHistory(path, term.history());
  } catch (err) {
    warn(ctx, `could not save the line history to ${path}: ${(err as Error).message}`);
  }
}

/** How a turn reaches the terminal: answers and results on stdout, everything else on stderr. */
function terminalIo(ctx: CommandContext, term: TalkTerminal): TurnIo {
  const spinner = term.interactive ? createPhaseSpinner(ctx.io) : undefined;
  const printer = createAnswerPrinter(ctx.out, spinner);
  const toStderr = (line: string) => {
    spinner?.stop();
    printer.endLine();
    ctx.io.stderr.write(line + '\n');
  };
  const tools = new Map<string, string>();
  return {
    token: (t) => printer.token(t),
    answerDone: (answer) => printer.finish(answer),
    result: (text) => {
      spinner?.stop();
      printer.endLine();
      ctx.out.text(text.endsWith('\n') ? text : text + '\n');
    },
    note: toStderr,
    tip: (line) => term.interactive && toStderr(line),
    warn: (line) => {
      spinner?.stop();
      printer.endLine();
      warn(ctx, line);
    },
    phase: (text) => spinner?.phase(text),
    phaseDone: () => spinner?.stop(),
    colors: ctx.out.colors,
    columns: ctx.io.columns,
    runObserver: () => {
      spinner?.stop();
      return createRunObserver(ctx.io, { steps: true, debug: ctx.debug.callback });
    },
    confirmApply: (c) => {
      spinner?.stop();
      return confirmApply(ctx, term, c);
    },
    permission: (request, signal) => {
      spinner?.stop();
      printer.endLine();
      return askPermission(ctx, term, request, signal);
    },
    agentUpdate: (update) => {
      const line = describeAgentUpdate(update, tools);
      if (line) toStderr(line);
      else if (update.sessionUpdate === 'agent_thought_chunk' && update.content.type === 'text') ctx.debug(`agent thinks: ${update.content.text}`);
    },
    error: (err) => {
      spinner?.stop();
      printer.endLine();
      return reportError(err, ctx);
    },
  };
}

/**
 * /apply's question: the steps, then "yes" (or, for a plan that destroys something, the names of what
 * it destroys, as `gpucloud action delete` asks for the hostname). --yes answers it; without a
 * terminal and without --yes it is refused, nothing sent.
 */
async function confirmApply(ctx: CommandContext, term: TalkTerminal, c: ApplyConfirmation): Promise<boolean> {
  // What is applied is said whether or not anyone is asked (--yes): computed from the requests.
  const consent = [`About to apply ${c.consent.steps.length} step(s):`, ...c.consent.lines.map((l) => printable(redactText(l)))];
  if (ctx.globals.yes || !term.interactive) ctx.io.stderr.write(consent.join('\n') + '\n');
  if (ctx.globals.yes) return true;
  if (!term.interactive) {
    throw new SafetyRefusal('applying needs your confirmation and there is no terminal to ask on; nothing was sent', { hint: 'run talk with --yes to confirm non-interactively' });
  }
  const col = stderrColors(ctx);
  const lines = [...consent];
  if (c.destroys.length) {
    lines.push(col.red(`It DESTROYS: ${c.destroys.map((d) => `${d.name} (${d.kind ?? 'resource'}, step ${d.index})`).join(', ')}. This cannot be undone.`));
    ctx.io.stderr.write(lines.join('\n') + '\n');
    const names = c.destroys.map((d) => d.name).join(' ');
    const typed = await term.question(`Type "${names}" to confirm: `, c.signal);
    if (typed === undefined) return false;
    if (!namesMatch(typed, c.destroys)) {
      ctx.io.stderr.write('confirmation did not match\n');
      return false;
    }
    return true;
  }
  ctx.io.stderr.write(lines.join('\n') + '\n');
  const answer = await term.question('Apply it? Type yes to apply: ', c.signal);
  return answer?.trim().toLowerCase() === 'yes';
}

/**
 * An external agent's permission request, put to the user. Never answered on the user's behalf: not
 * by --yes, and without a terminal it is refused (the agent's reject option, else cancelled).
 */
async function askPermission(ctx: CommandContext, term: TalkTerminal, request: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionOutcome> {
  const call = request.toolCall;
  const title = redactText(printable(call.title ?? 'a tool call'));
  const reject = request.options.find((o) => o.kind === 'reject_once') ?? request.options.find((o) => o.kind === 'reject_always');
  const refused: acp.RequestPermissionOutcome = reject ? { outcome: 'selected', optionId: reject.optionId } : { outcome: 'cancelled' };
  const lines = [`the agent asks permission: ${title}${call.kind ? ` (${call.kind})` : ''}`];
  if (call.rawInput !== undefined) {
    const input = redactText(printable(JSON.stringify(call.rawInput) ?? ''));
    lines.push(`  input: ${input.length > 400 ? `${input.slice(0, 400)}…` : input}`);
  }
  if (!term.interactive) {
    ctx.io.stderr.write([...lines, '  refused: there is no terminal to ask on (permission is never given without you)'].join('\n') + '\n');
    return refused;
  }
  lines.push(...request.options.map((o, i) => `  ${i + 1}) ${printable(o.name)}`));
  ctx.io.stderr.write(lines.join('\n') + '\n');
  const answer = (await term.question(`Choose 1-${request.options.length} (Enter refuses): `, signal))?.trim().toLowerCase();
  if (!answer) return refused;
  const byNumber = request.options[Number(answer) - 1];
  const chosen = /^\d+$/.test(answer) ? byNumber : request.options.find((o) => o.name.toLowerCase() === answer || o.optionId.toLowerCase() === answer);
  if (!chosen) {
    ctx.io.stderr.write('not one of the choices: refused\n');
    return refused;
  }
  return { outcome: 'selected', optionId: chosen.optionId };
}

/** One stderr line for an agent's tool call or plan (message text is the answer, shown on stdout). */
function describeAgentUpdate(update: acp.SessionUpdate, tools: Map<string, string>): string | undefined {
  switch (update.sessionUpdate) {
    case 'tool_call': {
      const title = redactText(printable(update.title));
      tools.set(update.toolCallId, title);
      return `  ⚙ ${title}${update.kind ? ` (${update.kind})` : ''}`;
    }
    case 'tool_call_update': {
      if (update.title) tools.set(update.toolCallId, redactText(printable(update.title)));
      const title = tools.get(update.toolCallId) ?? printable(update.toolCallId);
      if (update.status === 'completed') return `  ✓ ${title}`;
      if (update.status === 'failed') return `  ✗ ${title}`;
      return undefined;
    }
    case 'plan':
      return ['  plan:', ...update.entries.map((e) => `    [${e.status === 'completed' ? 'x' : e.status === 'in_progress' ? '>' : ' '}] ${redactText(printable(e.content))}`)].join('\n');
    default:
      return undefined;
  }
}
