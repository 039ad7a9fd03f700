/**
 * `assistant acp`: the assistant as an Agent Client Protocol agent on stdio, so editors that speak
 * ACP can ask it questions and have it make, price and dry-run plans, through the same engine as
 * `talk` (machines/talk/talk-engine.ts). A plan is applied only when the editor's user allows it: /apply
 * sends a permission request naming every step (and what it destroys), and nothing is sent
 * otherwise. Destructive plans also need the server started with --destroyer. stdout carries only
 * the protocol; diagnostics go to stderr.
 */
import type { ToolKind } from '@agentclientprotocol/sdk';
import { serveAcpAgent, type AgentTurn, type ToolCallHandle } from '../engine/producers/acp/agent-side.js';
import { AssistantError, ExitCode } from '../engine/core/errors.js';
import { redactText, redactValue } from '../engine/core/redact.js';
import { PLAIN } from '../engine/core/render/color.js';
import { SLASH_COMMANDS } from '../engine/producers/talk/input.js';
import { ConversationStore } from '../engine/producers/talk/store.js';
import { assistantVersion } from '../engine/core/version.js';
import { warn, type CommandContext } from './context.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { runGroup } from './group.js';
import { rawStream } from './terminal.js';
import { withSession } from './session.js';
import { TalkEngine, type TurnIo } from '../machines/talk/talk-engine.js';
import { talkHost } from './talk-host.js';
import { resolve } from 'node:path';

/** What `acp`'s flags are; AcpFlags is derived from it. */
const FLAGS = {
  acp: {
    destroyer: flag.bool().option('--destroyer', 'Allow plans with destructive steps to be applied (each still needs the permission request allowed)'),
    aiProfile: flag.text().option('--ai-profile <name>', 'AI profile (ai.providers.<name>) or provider value; "builtin" answers and plans offline'),
    model: flag.text().option('--model <name>', 'Model of the AI profile'),
    /** Seconds, 0 or more. */
    reuseReadsFor: flag.number(0, { exclusiveMin: false }).option('--reuse-reads-for <seconds>', 'How long a read of the cloud is reused within a session (default 60; 0: always read afresh)'),
  },
} satisfies Record<string, FlagSpec>;

type AcpFlags = OptionsOf<typeof FLAGS.acp>;

/** Commands an editor can offer from its prompt box (the session-level ones make no sense there). */
const ADVERTISED = ['maker', 'dry-run', 'apply', 'plan', 'provider', 'ai-profile', 'model', 'history', 'reset', 'help'];

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('acp', ['acp', ...argv], ctx, { flags: FLAGS }, (cli, start) => {
    withFlags(
      cli
        .command('acp', 'Serve the assistant as an ACP agent on stdio (for editors): questions, plans and dry runs; apply only through a permission request')
        .usage('[--destroyer] [--ai-profile <name>] [--model <name>]'),
      FLAGS.acp,
    )
      .example('  assistant acp                      # an editor starts it: command "assistant", args ["acp"]')
      .example('  assistant --sandbox acp --ai-profile builtin')
      .action((opts: AcpFlags) => start(() => serve(ctx, opts)));
  });
}

async function serve(ctx: CommandContext, opts: AcpFlags): Promise<number> {
  const reuse = opts.reuseReadsFor ?? 60;
  if (ctx.io.stdinIsTTY) warn(ctx, 'assistant acp speaks the Agent Client Protocol on stdin and stdout: an editor starts it (for a session in the terminal, use assistant talk)');
  return withSession(
    ctx,
    async (session) => {
      const server = serveAcpAgent({
        input: ctx.io.stdin,
        // The protocol, not text for a person: it goes to the real stdout, not through the terminal guard.
        output: rawStream(ctx.io.stdout),
        info: { name: 'assistant', version: assistantVersion() },
        signal: ctx.signal,
        commands: SLASH_COMMANDS.filter((c) => ADVERTISED.includes(c.name)).map((c) => ({ name: c.name, description: c.summary, hint: c.usage.replace(/^\/\S+\s*/, '') || undefined })),
        handler: () => {
          let engine: TalkEngine | undefined;
          return {
            newSession: (cwd) => {
              const store = ConversationStore.create(ctx.home, { aiProfile: opts.aiProfile, sandbox: ctx.globals.sandbox });
              engine = new TalkEngine(talkHost(ctx), session, store, {
                destroyer: Boolean(opts.destroyer),
                aiProfile: opts.aiProfile,
                model: opts.model,
                providerFlags: [],
                readsFreshMs: reuse * 1000,
                cwd: resolve(cwd || '.'),
              });
            },
            prompt: async (_id, text, turn) => {
              if (/^\/(exit|quit)\b/.test(text.trim())) return void turn.message('Close the session in your editor to end it.');
              await engine!.run(text, acpTurnIo(turn), turn.signal);
            },
            closeSession: () => engine?.close(),
          };
        },
      });
      await server.closed;
      return ExitCode.ok;
    },
    { overallDeadline: false },
  );
}

/** How a turn reaches an ACP client: text as agent messages, waits and plan steps as tool calls, /apply as a permission request. */
function acpTurnIo(turn: AgentTurn): TurnIo {
  let streamed = false;
  let current: ToolCallHandle | undefined;
  const endPhase = (status: 'completed' | 'failed' = 'completed') => {
    current?.update({ status });
    current = undefined;
  };
  const say = (text: string) => {
    endPhase();
    turn.message(text);
  };
  return {
    token: (t) => {
      endPhase();
      streamed = true;
      turn.message(t);
    },
    answerDone: (answer) => {
      if (!streamed && answer) say(answer);
      streamed = false;
    },
    result: (text) => say(`\n\`\`\`\n${text.trimEnd()}\n\`\`\`\n`),
    note: (line) => say(`\n${line}\n`),
    tip: (line) => turn.thought(`${line}\n`),
    warn: (line) => say(`\nwarning: ${line}\n`),
    phase: (text) => {
      endPhase();
      current = turn.toolCall({ title: text, kind: phaseKind(text) });
    },
    phaseDone: () => endPhase(),
    colors: PLAIN,
    columns: 120,
    runObserver: () => {
      const steps = new Map<number, ToolCallHandle>();
      const observer = (event: Parameters<ReturnType<TurnIo['runObserver']>>[0]) => {
        if (event.type === 'step-started') {
          endPhase();
          steps.set(event.index, turn.toolCall({ title: redactText(`[${event.index + 1}/${event.total}] ${event.description} — ${event.reason}`), kind: 'execute' }));
        } else if (event.type === 'step-done') {
          steps.get(event.index)?.update({ status: 'completed', text: `${event.status === undefined ? '' : `HTTP ${event.status} `}in ${Math.round(event.durationMs)} ms` });
        } else if (event.type === 'step-failed') {
          steps.get(event.index)?.update({ status: 'failed', text: redactText((event.error as Error)?.message ?? String(event.error)) });
        }
      };
      return Object.assign(observer, { stop: () => undefined });
    },
    confirmApply: async (c) => {
      endPhase();
      // The editor shows what the requests ask for and cost, and the plan's words only after them.
      const destroys = c.destroys.map((d) => d.name).join(', ');
      const answer = await turn.requestPermission({
        title: `Apply the plan: ${c.consent.steps.length} step(s)${destroys ? `; it DESTROYS ${destroys}` : ''}`,
        kind: c.destroys.length ? 'delete' : 'execute',
        rawInput: redactValue({ steps: c.consent.steps, currency: c.consent.currency, destroys: c.destroys.map((d) => ({ step: d.index, kind: d.kind, name: d.name })) }),
        text: redactText(c.consent.lines.join('\n')),
      });
      return answer === 'allow';
    },
    // Nested agents do not exist here: nothing to ask about.
    permission: async () => ({ outcome: 'cancelled' }),
    agentUpdate: () => undefined,
    error: (err) => {
      endPhase('failed');
      if (err instanceof AssistantError) {
        turn.message(`\nerror: ${err.code}: ${redactText(err.message)}\n${err.hint ? `hint: ${redactText(err.hint)}\n` : ''}`);
        return err.exitCode;
      }
      turn.message(`\nerror: internal: ${redactText(err instanceof Error ? err.message : String(err))}\n`);
      return ExitCode.failed;
    },
  };
}

function phaseKind(text: string): ToolKind {
  return /read|pric|catalogue|balance|availab|context/i.test(text) ? 'read' : 'think';
}
