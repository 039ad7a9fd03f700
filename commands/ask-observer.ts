/**
 * The context object of an ask flow run by a command, and the CLI's one observer of it (`ask`, `k8s ask`): the phases drive the spinner (or, with
 * --agent-trace, print `trace: <from> -> <to>` lines), progress lines go to the spinner or stderr, tokens
 * stream to stdout, debug lines go to the command's debug writer. Types only from the flow: loading
 * this module loads no machine.
 */
import type { AskAiChoice, AskBackend, AskContext, AskEvent, AskObserver, AskPhase } from '../machines/ask/ask-flow.js';
import type { CommandContext } from './context.js';
import type { AnswerPrinter, PhaseSpinner } from './progress.js';

export interface CliAskObserverOptions {
  /** What the spinner says in each phase (a phase without a text stops it). */
  phases: Partial<Record<AskPhase, string>>;
  spinner?: PhaseSpinner;
  /** Where the answer streams; none with -o json|yaml (the answer is in the document). */
  out?: AnswerPrinter;
  /** --agent-trace: one `trace: <from> -> <to>` line per phase on stderr. */
  agentTrace: boolean;
  /** --debug: the command's (redacting) debug writer; none without --debug. */
  debug?: (line: string) => void;
}

export function cliAskObserver(ctx: Pick<CommandContext, 'io'>, o: CliAskObserverOptions): AskObserver {
  return (event: AskEvent) => {
    switch (event.type) {
      case 'ask.phase': {
        const text = o.phases[event.to];
        if (text) o.spinner?.phase(text);
        else o.spinner?.stop();
        if (!o.agentTrace) return;
        // A phase after the answer (answering -> done) comes after the answer's own line end.
        o.out?.endLine();
        ctx.io.stderr.write(`trace: ${event.from} -> ${event.to}\n`);
        return;
      }
      case 'ask.progress':
        if (o.spinner) o.spinner.phase(event.text);
        else ctx.io.stderr.write(`${event.text}\n`);
        return;
      case 'ask.notice':
        o.spinner?.stop();
        ctx.io.stderr.write(`${event.text}\n`);
        return;
      case 'ask.token':
        o.out?.token(event.text);
        return;
      case 'ask.debug':
        if (!o.debug) return;
        o.spinner?.stop();
        o.debug(event.line);
        return;
      default:
        return;
    }
  };
}

/** The flow's context for a command: its backend, env, home, signal (a talk turn's own), sandbox, and `--timeout` bounding each AI call. */
export function cliAskContext(ctx: Pick<CommandContext, 'env' | 'home' | 'signal' | 'globals'>, backend: AskBackend, ai: Omit<AskAiChoice, 'policy' | 'builtinWhenUnconfigured'> = {}, signal: AbortSignal = ctx.signal): AskContext {
  const policy = ctx.globals.timeout ? { timeoutMs: ctx.globals.timeout * 1000 } : undefined;
  return { backend, home: ctx.home, env: ctx.env, signal, sandbox: ctx.globals.sandbox, ai: { ...ai, policy, builtinWhenUnconfigured: true } };
}
