/**
 * Entry point. Kept tiny on purpose: `--version` answers before anything else loads, and each
 * command group is imported only when it is used (start-up time is benchmarked).
 */
import { assistantVersion } from './engine/core/version.js';
import type { CommandContext, CommandGroupRunner, GlobalOptions, Io, OutputFormat } from './commands/context.js';
import { laterGroups, notAvailableYet } from './commands/not-available.js';

/** `serves`: the group is a server a client talks to for as long as it likes, so its exit is no one's wait. */
const GROUPS: Record<string, { summary: string; serves?: true; load: () => Promise<{ run: CommandGroupRunner }> }> = {
  ask: { summary: 'Answer a question, write a plan for a request (--maker) or apply one (--apply)', load: () => import('./commands/ask.js') },
  gpucloud: { summary: 'List, get and act on gpucloud resources directly (no AI)', load: () => import('./commands/gpucloud.js') },
  k8s: { summary: 'Kubernetes: create clusters as plans (gpucloud, eks, gke, kubeadm); deploy, get, logs, stats, ask and delete on one', load: () => import('./commands/k8s.js') },
  cost: { summary: 'What gpucloud (and cloud_a) costs now, on what, the trend, and when the balance runs out', load: () => import('./commands/cost.js') },
  deploy: { summary: 'Deploy a repository as a reviewable plan: a gpucloud instance or serverless container (or cloud_a)', load: () => import('./commands/deploy.js') },
  plan: { summary: 'Validate plan documents before applying them', load: () => import('./commands/plan.js') },
  config: { summary: 'Show the effective configuration', load: () => import('./commands/config.js') },
  credentials: { summary: 'Store, list, delete and test provider credentials (the backend store: credentials store)', load: () => import('./commands/credentials.js') },
  backend: { summary: 'Run the credential backend a team shares (backend serve) and administer its keys and audit log', load: () => import('./commands/backend.js') },
  runs: { summary: "The team's run history in the backend: who applied which plan, when, what it made and costs", load: () => import('./commands/runs.js') },
  autostop: { summary: 'Idle auto-stop: stop instances whose GPUs and logins have been idle too long (check, from cron, CI or mcp)', load: () => import('./commands/autostop.js') },
  onboarding: { summary: 'Scan for provider tools and credentials (names, never values) and install missing tools safely', load: () => import('./commands/onboarding.js') },
  mcp: { summary: 'Serve the tools to AI agents (MCP over HTTP or stdio)', serves: true, load: () => import('./commands/mcp.js') },
  talk: { summary: 'An interactive session: questions with memory; plans made, dry-run and applied by slash command', load: () => import('./commands/talk.js') },
  acp: { summary: 'Serve the assistant to editors as an ACP agent on stdio (reads and plans; apply only when allowed)', serves: true, load: () => import('./commands/acp.js') },
  migrate: { summary: "Move from the original tool: rename its config sections (migrate config)", load: () => import('./commands/migrate.js') },
  sandbox: { summary: 'The local sandbox (--sandbox): reset it, or show where its state lives', load: () => import('./commands/sandbox.js') },
  box: { summary: 'Run an agent in a box: catalog, a manifest that deploys it to gpucloud containers, and the box server', load: () => import('./commands/box.js') },
};


function topLevelHelp(): string {
  const width = Math.max(...Object.keys(GROUPS).map((g) => g.length));
  const groups = Object.entries(GROUPS)
    .map(([name, g]) => `  ${name.padEnd(width)}  ${g.summary}`)
    .join('\n');
  return `assistant ${assistantVersion()} — a command-line assistant for cloud infrastructure, with gpucloud built in

Usage:
  assistant <command> [subcommand] [flags]

Commands:
${groups}
  ${'help'.padEnd(width)}  Help for a command: assistant help <command> [subcommand]
  ${'version'.padEnd(width)}  Print the version (-o json: as JSON)
  ${'completion'.padEnd(width)}  Shell completion: assistant completion bash|zsh|fish (source <(assistant completion bash))
${laterGroups().length ? `\nComing later (not available yet): ${laterGroups().join(', ')}\n` : ''}
Global flags:
  --config <path>        Configuration file (default ~/.assistant.yaml)
  --context <name>       Named context for this command (config use, config contexts; ASSISTANT_CONTEXT)
  -o, --output <format>  table | wide | json | yaml (wide: every column on a terminal too)
  --sandbox              Run against a local gpucloud emulator (state in ~/.assistant/sandbox/)
  --yes                  Answer yes to confirmations
  --timeout <duration>   Global operation timeout: seconds or a duration (30, 30s, 5m)
  --debug                Diagnostic output on stderr (secrets are always redacted)
  --no-color             Plain output (NO_COLOR is honoured too)
  -v, --version          Print the version
  -h, --help             Help for any command

Examples:
  assistant --sandbox gpucloud list instances
  assistant --sandbox ask "what is my balance?"
  assistant --sandbox gpucloud action shutdown demo-a100
  assistant --sandbox ask --maker "create a 1V100.6V instance called train-1 in FIN-01" > plan.json
  assistant --sandbox ask --apply --plan-file plan.json
  assistant k8s create gpucloud gpu-k8s --plan > cluster.json
  assistant deploy https://github.com/acme/api > deploy-plan.json
  assistant cost summary
  assistant ask --cloud-a --profile prod "which buckets do I have"
  assistant credentials test gpucloud
  assistant onboarding scan --check
  assistant gpucloud get instance train-1 -o json
  assistant mcp --transport stdio
  assistant --sandbox talk --ai-profile builtin

Exit codes: 0 ok, 1 failed, 2 invalid input, 3 refused for safety, 130 interrupted.
Run 'assistant <command> --help' for more.
`;
}

/**
 * Pulls the global flags out of argv wherever they appear; the rest goes to the command group.
 * `--timeout` is kept as typed (`timeout`): it is coerced with the other flags (commands/flag-spec.ts).
 */
export function parseGlobals(argv: string[]): { globals: GlobalOptions; rest: string[]; color: boolean; timeout?: string } {
  const globals: GlobalOptions = { output: 'table', outputExplicit: false, debug: false, yes: false, sandbox: false };
  let color = true;
  let timeout: string | undefined;
  const rest: string[] = [];
  const take = (i: number, flag: string): string => {
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('-')) throw new GlobalUsageError(`${flag} needs a value`);
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = take(i, flag);
      i++;
      return v;
    };
    switch (flag) {
      case '--config':
        globals.config = value();
        break;
      case '--context':
        globals.context = value();
        break;
      case '-o':
      case '--output': {
        // `cost export --output <file>` (SPEC 4.2) names a file there; `-o` stays the format.
        if (flag === '--output' && rest[0] === 'cost' && rest[1] === 'export') {
          rest.push(arg);
          if (inline === undefined && argv[i + 1] !== undefined) rest.push(argv[++i]!);
          break;
        }
        const v = value();
        if (!['table', 'wide', 'json', 'yaml'].includes(v)) throw new GlobalUsageError(`--output must be table, wide, json or yaml (got "${v}")`);
        // `wide` is a table with every column (kubectl's -o wide), so every command that prints a table prints it.
        globals.output = v === 'wide' ? 'table' : (v as OutputFormat);
        globals.wide = v === 'wide';
        globals.outputExplicit = true;
        break;
      }
      case '--debug':
        globals.debug = true;
        break;
      case '--yes':
      case '-y':
        globals.yes = true;
        break;
      case '--sandbox':
        globals.sandbox = true;
        break;
      case '--no-color':
        color = false;
        break;
      case '--timeout':
        timeout = value();
        break;
      default:
        rest.push(arg);
    }
  }
  return { globals, rest, color, timeout };
}

/** --timeout as seconds: `30`, `30s`, `5m`, `1h30m` (zod is loaded only when the flag is given). */
async function timeoutSeconds(raw: string): Promise<number> {
  const { coerceFlags, flag } = await import('./commands/flag-spec.js');
  const { timeout } = await coerceFlags({ timeout: raw as unknown }, { timeout: { ...flag.duration(), hint: "give seconds or a duration: --timeout 30, --timeout 30s, --timeout 5m (see 'assistant --help')" } }, '');
  return timeout as number;
}

class GlobalUsageError extends Error {}

/** What `assistant __complete` answers for the first word: the groups, these, and the global flags. */
const COMPLETE = '__complete';
const BUILTIN_WORDS = ['help', 'version', 'completion'];
const GLOBAL_FLAG_WORDS = ['--config', '--context', '--output', '--sandbox', '--yes', '--timeout', '--debug', '--no-color', '--version', '--help'];

/**
 * Node's `fetch` parses HTTP with llhttp compiled to WebAssembly. After two or three responses V8 starts
 * recompiling it with its optimising compiler on a background thread, and a process does not exit before
 * that job ends: a one-read command waited 300–500 ms (and ~200 ms of CPU) after printing its result, on
 * the 2-core machine (issue 40; the plain fetch script the bench compares with pays it too). A budget 100×
 * V8's default (1.8 M) keeps a command's few dozen responses on the baseline code, which parses them in
 * microseconds, while a server's hot parser (mcp, backend serve) still moves up after some hundreds.
 * Set before the first fetch: the budget is read when the module is instantiated. Not for the servers
 * (`serves`): their exit is no one's wait, and their parser is hot from the first minutes.
 */
async function deferWasmTierUp(): Promise<void> {
  (await import('node:v8')).setFlagsFromString('--wasm-tiering-budget=180000000');
}

/**
 * Where a run of the CLI reads and writes, gh's IOStreams: the process's own (the entry at the bottom of
 * this file) or a test's in-memory streams (test/support/in-process.ts), so a command runs the same code
 * either way. Nothing below `main` touches process.* for these.
 */
export interface CliHost extends Pick<Io, 'stdout' | 'stderr' | 'stdin' | 'stdoutIsTTY' | 'stderrIsTTY' | 'stdinIsTTY'> {
  /** The terminal's width when stdout is one (undefined when unknown: COLUMNS, else 80). */
  columns?: number;
  env: NodeJS.ProcessEnv;
  /**
   * Starts listening for the user's interrupt (Ctrl-C) and returns the signal aborted with `reason()`.
   * Called once, when a command group is about to run (before that, Ctrl-C ends the process as usual).
   */
  interrupt(reason: () => Error): AbortSignal;
}

export async function main(argv: string[], host: CliHost): Promise<number> {
  try {
    return await runMain(argv, host);
  } finally {
    // `__complete` tells the group's parser to list words instead of running; a later run is not completing.
    if (argv.includes(COMPLETE)) (await import('./commands/group.js')).completing.words = undefined;
  }
}

async function runMain(argv: string[], host: CliHost): Promise<number> {
  const { stdout, stderr } = host;
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    stdout.write(assistantVersion() + '\n');
    return 0;
  }
  let parsed: ReturnType<typeof parseGlobals>;
  try {
    parsed = parseGlobals(argv);
  } catch (err) {
    stderr.write(`error: usage: ${(err as Error).message}\nhint: run 'assistant --help'\n`);
    return 2;
  }
  const { globals, rest } = parsed;
  if (parsed.timeout !== undefined) {
    try {
      globals.timeout = await timeoutSeconds(parsed.timeout);
    } catch (err) {
      const e = err as Error & { code?: string; hint?: string };
      stderr.write(`error: ${e.code ?? 'invalid_input'}: ${e.message}\n${e.hint ? `hint: ${e.hint}\n` : ''}`);
      return 2;
    }
  }
  let [groupName, ...groupArgv] = rest;
  // `assistant help gpucloud list` is `assistant gpucloud list --help` (as in gh and kubectl).
  if (groupName === 'help' && groupArgv[0] && groupArgv[0] in GROUPS) [groupName, ...groupArgv] = [...groupArgv, '--help'];
  if (!groupName || groupName === '--help' || groupName === '-h' || groupName === 'help') {
    stdout.write(topLevelHelp());
    return 0;
  }
  if (groupName === '--version' || groupName === '-v' || groupName === 'version') {
    stdout.write(globals.outputExplicit && globals.output !== 'table' ? `${globals.output === 'json' ? JSON.stringify({ version: assistantVersion() }) : `version: ${assistantVersion()}`}\n` : `${assistantVersion()}\n`);
    return 0;
  }
  if (groupName === 'completion') {
    const { completionScript } = await import('./commands/completion.js');
    try {
      stdout.write(completionScript(groupArgv[0]));
      return 0;
    } catch (err) {
      const e = err as Error & { hint?: string };
      stderr.write(`error: usage: ${e.message}\n${e.hint ? `hint: ${e.hint}\n` : ''}`);
      return 2;
    }
  }
  if (groupName === COMPLETE) {
    // The shells' completion scripts ask here for the words that may follow what was typed.
    if (!groupArgv[0] || !(groupArgv[0] in GROUPS)) {
      stdout.write([...Object.keys(GROUPS), ...BUILTIN_WORDS, ...GLOBAL_FLAG_WORDS].join('\n') + '\n');
      return 0;
    }
    (await import('./commands/group.js')).completing.words = groupArgv.slice(1);
    [groupName, ...groupArgv] = groupArgv;
  }
  const later = notAvailableYet(groupName, groupArgv);
  if (later) {
    stderr.write(
      `error: not_available: "${later.command}" is not available yet: ${later.what} comes in a later release\nhint: run 'assistant --help' to see what is built today\n`,
    );
    return 2;
  }
  const group = GROUPS[groupName];
  if (group && !group.serves) await deferWasmTierUp();
  // The group's modules load while the context is chosen and the output set up (each `import()` waits on
  // file reads in Node's thread pool, so loads started together overlap); a failed load is reported below.
  const loading = group?.load();
  loading?.catch(() => undefined);
  const home = host.env.HOME || (await import('node:os')).homedir();
  if (group) {
    // The named context (config use, --context, ASSISTANT_CONTEXT) becomes the config file and --sandbox.
    const { chooseContext } = await import('./engine/core/config/contexts.js');
    try {
      const chosen = chooseContext({ flag: globals.context, config: globals.config, env: host.env, home, creating: groupName === 'config' && groupArgv[0] === 'init' });
      globals.config = chosen.config;
      globals.sandbox ||= chosen.sandbox;
      globals.context = chosen.name;
      globals.contextFrom = chosen.from;
      if (chosen.warning) stderr.write(`warning: ${chosen.warning}\n`);
    } catch (err) {
      const e = err as Error & { hint?: string };
      stderr.write(`error: usage: ${e.message}\n${e.hint ? `hint: ${e.hint}\n` : ''}`);
      return 2;
    }
  }
  if (!group) {
    const { closest } = await import('./engine/core/did-you-mean.js');
    const meant = closest(groupName, Object.keys(GROUPS));
    stderr.write(`error: usage: unknown command "${groupName}"${meant ? `; did you mean "${meant}"?` : ''}\nhint: run 'assistant --help' to see the commands\n`);
    return 2;
  }

  const [{ colorEnabled }, { commandContext }, { InterruptedError }] = await Promise.all([
    import('./engine/core/render/color.js'),
    import('./commands/context.js'),
    import('./engine/core/errors.js'),
  ]);
  const interrupt = host.interrupt(() => new InterruptedError('interrupted by the user (Ctrl-C)'));
  const ctx: CommandContext = commandContext(
    {
      io: {
        stdout,
        stderr,
        stdin: host.stdin,
        stdoutIsTTY: host.stdoutIsTTY,
        stderrIsTTY: host.stderrIsTTY,
        stdinIsTTY: host.stdinIsTTY,
        // A pipe or a file is not an 80-column terminal: its tables get every column (as gh and kubectl do).
        columns: host.stdoutIsTTY ? host.columns || Number(host.env.COLUMNS) || 80 : Infinity,
        color: colorEnabled(host.stderrIsTTY, !parsed.color, host.env),
        stdoutColor: colorEnabled(host.stdoutIsTTY, !parsed.color, host.env),
      },
      env: host.env,
      home,
      globals,
    },
    interrupt,
  );
  const { reportError } = await import('./commands/report-error.js');
  try {
    const mod = await loading!;
    return await mod.run(groupArgv, ctx);
  } catch (err) {
    return reportError(err, ctx);
  }
}

/**
 * The process entry: the process's streams and terminal, SIGINT (a second Ctrl-C ends at once with 130)
 * and the exit code. Run only when this file is the program, not when a test imports `main`.
 */
function processHost(): CliHost {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
    columns: process.stdout.columns,
    env: process.env,
    interrupt(reason) {
      const interrupt = new AbortController();
      let interrupts = 0;
      process.on('SIGINT', () => {
        interrupts++;
        if (interrupts > 1) process.exit(130);
        interrupt.abort(reason());
      });
      return interrupt.signal;
    },
  };
}

/**
 * A reader that stops early (`assistant … | head`) closes the pipe. Stop quietly, as other command-line
 * tools do, instead of dying on an unhandled EPIPE with a stack trace: the reader has what it wanted.
 * Writes reach stdout at the end of a command (progress goes to stderr), so nothing is cut short that a
 * journal would not resume.
 */
function exitQuietlyWhenStdoutCloses(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

/**
 * Set on globalThis by a program that imports this file to call `main` itself (test/support/in-process.ts)
 * before it imports it: the process is then not ours to run. bin/assistant.js only imports this file, as
 * older builds' shims did (the bench runs a baseline build through its own shim), so the entry runs on import.
 */
export const EMBEDDED = Symbol.for('assistant.cli.embedded');

if (!(globalThis as Record<symbol, unknown>)[EMBEDDED]) {
  exitQuietlyWhenStdoutCloses();
  main(process.argv.slice(2), processHost()).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`error: internal: ${(err as Error)?.message ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
