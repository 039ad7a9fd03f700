/**
 * The client side of the Agent Client Protocol (ACP, `@agentclientprotocol/sdk`): runs an external
 * agent binary as a child process and talks ACP v1 to it over stdio (newline-delimited JSON-RPC).
 *
 *   const agent = await startAcpAgent({ command, args, env, signal });
 *   const { text, stopReason } = await agent.prompt('hello', { onUpdate, onPermission, signal });
 *   await agent.close();
 *
 * What the agent may do through us is default-deny: we advertise no file system and no terminal
 * capability, so its only ways to act are its own tools, each of which it must ask permission for
 * (`session/request_permission`); those requests go to `onPermission`, the caller's user, and an
 * answer that is not one of the offered options counts as cancelled. Cancelling a prompt (its
 * signal) sends `session/cancel`, answers a pending permission request with `cancelled` (the spec
 * requires it) and waits a short grace for the agent's `cancelled` stop; an agent that ignores it is
 * not waited for. The child leads its own process group and the group is killed on close, on the
 * start signal, and if it outlives us.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { basename } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { InterruptedError, OperationError, UsageError } from '../../core/errors.js';
import type { Contained } from '../../core/process/contain.js';
import { killGroup, OWN_GROUP } from '../../core/process/group.js';
import { redactText } from '../../core/redact.js';

export type { acp };

export interface StartAcpAgentOptions {
  command: string;
  args?: string[];
  /** The whole environment of the child (see agentEnvironment: an allowlist, never ours as is). */
  env: Record<string, string>;
  cwd?: string;
  /**
   * The agent in its sandbox (engine/producers/acp/sandbox.ts): started through it instead of `command`,
   * with its scratch folder as the session's working directory, removed when the process ends.
   */
  contained?: Contained;
  /** Aborting it stops the agent (the command's signal). */
  signal?: AbortSignal;
  /** Each line the agent writes to stderr (its logs). The last lines are kept for crash reports anyway. */
  onStderr?: (line: string) => void;
  /** The process ended, whatever the reason (crash, close, signal). */
  onExit?: (exit: AgentExit) => void;
  /** Chosen on every new session through the agent's `model` config option, when it offers that value. */
  model?: string;
  /** How long start-up (initialize and session/new) may take; default 60 s. */
  startTimeoutMs?: number;
  clientInfo?: { name: string; version: string };
}

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines the agent wrote to stderr (redacted). */
  stderrTail: string[];
}

export interface AcpPromptOptions {
  /** Every `session/update` of this prompt, in the order it came (message chunks, tool calls, plans). */
  onUpdate?: (update: acp.SessionUpdate) => void;
  /** A permission request, put to the user. Its signal aborts when the prompt is cancelled or the agent dies. */
  onPermission: (request: acp.RequestPermissionRequest, signal: AbortSignal) => Promise<acp.RequestPermissionOutcome>;
  signal?: AbortSignal;
}

export interface AcpPromptResult {
  stopReason: acp.StopReason;
  /** The agent's message text of this prompt, as streamed. */
  text: string;
}

export interface AcpAgent {
  /** The agent's own name (agentInfo), else the binary's. */
  readonly name: string;
  readonly version?: string;
  readonly sessionId: string;
  /** False once the process has ended. */
  readonly running: boolean;
  /** Settles when the process ends. */
  readonly exited: Promise<AgentExit>;
  /** Whether `model` was chosen through the agent's config option (else only what its launch passed). */
  readonly modelChosen: boolean;
  prompt(content: string | acp.ContentBlock[], opts: AcpPromptOptions): Promise<AcpPromptResult>;
  /** A fresh session on the same process (the conversation is forgotten by the agent). */
  newSession(): Promise<string>;
  /** Chooses a model through the agent's `model` config option; false when it offers no such choice. */
  setModel(model: string): Promise<boolean>;
  close(): Promise<void>;
}

const STDERR_TAIL_LINES = 20;
/** How long a cancelled prompt waits for the agent's own `cancelled` answer. */
const CANCEL_GRACE_MS = 3_000;
/** How long a closed connection waits for the process's exit status, to report it. */
const EXIT_WAIT_MS = 2_000;
/** How long close() waits after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2_000;

interface ActivePrompt {
  sessionId: string;
  onUpdate?: (update: acp.SessionUpdate) => void;
  onPermission: AcpPromptOptions['onPermission'];
  /** Aborted when the prompt is cancelled or the agent dies: pending permission questions end. */
  questions: AbortController;
  text: string;
}

export async function startAcpAgent(opts: StartAcpAgentOptions): Promise<AcpAgent> {
  const binary = basename(opts.command);
  if (opts.signal?.aborted) throw new InterruptedError('stopped before the agent started');
  const child: ChildProcess = opts.contained
    ? opts.contained.spawn(['pipe', 'pipe', 'pipe'])
    : spawn(opts.command, opts.args ?? [], { env: opts.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'], ...OWN_GROUP });
  const cwd = opts.contained?.cwd ?? opts.cwd ?? process.cwd();
  const stderrTail: string[] = [];
  let stderrRest = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (stderrRest + chunk).split('\n');
    stderrRest = lines.pop() ?? '';
    for (const raw of lines) {
      const line = redactText(raw);
      stderrTail.push(line);
      if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
      opts.onStderr?.(line);
    }
  });

  let running = true;
  let spawnError: NodeJS.ErrnoException | undefined;
  const exited = new Promise<AgentExit>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      spawnError = err;
      running = false;
      opts.contained?.dispose();
      resolve({ code: null, signal: null, stderrTail });
    });
    child.once('exit', (code, signal) => {
      running = false;
      opts.contained?.dispose();
      if (stderrRest) stderrTail.push(redactText(stderrRest));
      resolve({ code, signal, stderrTail });
    });
  });
  // We may be gone before the agent (a crash of ours, process.exit): its group must not outlive us.
  const killOnExit = () => running && killGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);

  let active: ActivePrompt | undefined;
  const app = acp
    .client({ name: opts.clientInfo?.name ?? 'assistant' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (!active || params.sessionId !== active.sessionId) return; // late updates of a finished prompt
      const update = params.update;
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') active.text += update.content.text;
      active.onUpdate?.(update);
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
      const prompt = active;
      if (!prompt || params.sessionId !== prompt.sessionId) return { outcome: { outcome: 'cancelled' } };
      const questions = AbortSignal.any([prompt.questions.signal, signal]);
      const outcome = await prompt.onPermission(params, questions).catch(() => ({ outcome: 'cancelled' }) as const);
      // Only an option the agent offered is an answer; a cancelled prompt cancels its questions.
      if (questions.aborted || outcome.outcome !== 'selected' || !params.options.some((o) => o.optionId === outcome.optionId)) {
        return { outcome: { outcome: 'cancelled' } };
      }
      return { outcome: { outcome: 'selected', optionId: outcome.optionId } };
    });
  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  child.stdin!.on('error', () => undefined); // EPIPE when the agent dies: the exit handler reports it

  const describeExit = (exit: AgentExit) => (exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`);
  const crashHint = (exit: AgentExit) =>
    exit.stderrTail.length ? `its last words on stderr: ${exit.stderrTail.slice(-3).join(' | ')}` : 'it wrote nothing on stderr; run it on its own to see why';

  const exitedError = (exit: AgentExit, what: string) =>
    new OperationError('agent_exited', spawnError ? agentNotStarted(opts.command, spawnError).message : `the agent (${binary}) ${describeExit(exit)} ${what}`.trimEnd(), {
      hint: spawnError ? agentNotStarted(opts.command, spawnError).hint : crashHint(exit),
    });

  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    connection.close();
    if (running) {
      child.stdin!.end();
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => running && killGroup(child, 'SIGKILL'), KILL_GRACE_MS);
      timer.unref();
      await exited;
      clearTimeout(timer);
    }
  };
  const onAbort = () => void stop();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  void exited.then((exit) => {
    process.off('exit', killOnExit);
    opts.signal?.removeEventListener('abort', onAbort);
    connection.close(exitedError(exit, ''));
    active?.questions.abort();
    opts.onExit?.(exit);
  });

  const agent = connection.agent;
  /** A request that also fails as soon as the agent process is gone (not only when the stream closes). */
  const untilExit = async <T>(request: Promise<T>, what: string): Promise<T> => {
    const gone = exited.then((exit) => {
      throw exitedError(exit, what);
    });
    try {
      return await Promise.race([request, gone]);
    } catch (err) {
      if (err instanceof acp.RequestError || (err instanceof OperationError && err.code === 'agent_exited')) throw err;
      // The stream closing comes a moment before the process's exit: wait for it, to say how it ended.
      const exit = await Promise.race([exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), EXIT_WAIT_MS).unref())]);
      if (exit) throw exitedError(exit, what);
      throw err;
    }
  };

  let info: acp.InitializeResponse;
  let sessionId = '';
  let modelChosen = false;
  let modelOption: { id: string; values: string[] } | undefined;
  const startTimeout = opts.startTimeoutMs ?? 60_000;
  const chooseModel = async (sid: string, model: string): Promise<boolean> => {
    if (!modelOption?.values.includes(model)) return false;
    await untilExit(agent.request(acp.methods.agent.session.setConfigOption, { sessionId: sid, configId: modelOption.id, value: model }), 'while choosing the model');
    return true;
  };
  const openSession = async (): Promise<string> => {
    const created = await untilExit(agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] }), 'while starting a session');
    modelOption = modelOptionOf(created.configOptions);
    if (opts.model) modelChosen = await chooseModel(created.sessionId, opts.model);
    return created.sessionId;
  };
  const initializeRequest: acp.InitializeRequest = {
    protocolVersion: acp.PROTOCOL_VERSION,
    // Nothing of ours is lent to the agent: no file system, no terminal.
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: opts.clientInfo ?? { name: 'assistant', version: '0' },
  };
  let startTimer: NodeJS.Timeout | undefined;
  try {
    const timer = new Promise<never>((_, reject) => {
      startTimer = setTimeout(() => reject(new OperationError('agent_timeout', `the agent (${binary}) did not finish starting within ${Math.round(startTimeout / 1000)} s`)), startTimeout);
      startTimer.unref();
    });
    info = await Promise.race([
      untilExit(
        agent.request(acp.methods.agent.initialize, initializeRequest),
        'during start-up',
      ),
      timer,
    ]);
    if (info.protocolVersion !== acp.PROTOCOL_VERSION) {
      throw new OperationError('agent_protocol', `the agent (${binary}) speaks ACP version ${info.protocolVersion}; assistant speaks version ${acp.PROTOCOL_VERSION}`, {
        hint: 'update the agent, or choose another with --agent',
      });
    }
    sessionId = await Promise.race([openSession(), timer]);
  } catch (err) {
    await stop();
    if (err instanceof acp.RequestError) {
      throw new OperationError('agent_refused', `the agent (${binary}) refused to start a session: ${redactText(err.message)}`, {
        hint: 'it may need to be logged in or configured first: run it once on its own',
      });
    }
    throw err;
  } finally {
    clearTimeout(startTimer);
  }

  return {
    name: info.agentInfo?.name ?? binary,
    version: info.agentInfo?.version,
    get sessionId() {
      return sessionId;
    },
    get running() {
      return running;
    },
    exited,
    get modelChosen() {
      return modelChosen;
    },
    async prompt(content, p) {
      if (!running) throw new OperationError('agent_exited', `the agent (${binary}) is not running`);
      if (active) throw new UsageError('the agent is still answering the previous prompt');
      const turn: ActivePrompt = { sessionId, onUpdate: p.onUpdate, onPermission: p.onPermission, questions: new AbortController(), text: '' };
      active = turn;
      const blocks: acp.ContentBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
      const request = agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: blocks });
      let cancelled = false;
      const onCancel = () => {
        cancelled = true;
        turn.questions.abort();
        void agent.notify(acp.methods.agent.session.cancel, { sessionId: turn.sessionId }).catch(() => undefined);
      };
      if (p.signal?.aborted) onCancel();
      else p.signal?.addEventListener('abort', onCancel, { once: true });
      try {
        const graceAfterCancel = new Promise<acp.PromptResponse>((resolve) => {
          const wait = () => {
            const t = setTimeout(() => resolve({ stopReason: 'cancelled' }), CANCEL_GRACE_MS);
            t.unref();
            void request.finally(() => clearTimeout(t)).catch(() => undefined);
          };
          if (cancelled) wait();
          else p.signal?.addEventListener('abort', wait, { once: true });
        });
        const response = await untilExit(Promise.race([request, graceAfterCancel]), 'in the middle of the answer');
        return { stopReason: cancelled ? 'cancelled' : response.stopReason, text: turn.text };
      } catch (err) {
        if (cancelled && !(err instanceof OperationError)) return { stopReason: 'cancelled', text: turn.text };
        if (err instanceof acp.RequestError) throw new OperationError('agent_error', `the agent (${binary}) answered with an error: ${redactText(err.message)}`);
        throw err;
      } finally {
        p.signal?.removeEventListener('abort', onCancel);
        turn.questions.abort();
        if (active === turn) active = undefined;
      }
    },
    async newSession() {
      sessionId = await openSession();
      return sessionId;
    },
    async setModel(model) {
      return chooseModel(sessionId, model);
    },
    close: stop,
  };
}

/** The agent's model choice among its session config options (a select of category `model`). */
function modelOptionOf(options: acp.SessionConfigOption[] | null | undefined): { id: string; values: string[] } | undefined {
  const option = options?.find((o) => o.category === 'model' && o.type === 'select');
  if (!option || option.type !== 'select') return undefined;
  const values = (option.options as (acp.SessionConfigSelectOption | { options: acp.SessionConfigSelectOption[] })[]).flatMap((o) => ('options' in o ? o.options.map((x) => x.value) : [o.value]));
  return { id: option.id, values };
}

function agentNotStarted(command: string, err: NodeJS.ErrnoException): { message: string; hint: string } {
  if (err.code === 'ENOENT') return { message: `the agent ${command} was not found`, hint: 'check agent.path in the config, or pass --agent <name or path>' };
  if (err.code === 'EACCES') return { message: `the agent ${command} is not executable`, hint: `chmod +x ${command}` };
  return { message: `the agent ${command} could not be started: ${err.message}`, hint: 'check agent.path in the config, or pass --agent <name or path>' };
}
