/**
 * Containment for children that run code we did not write (DESIGN §8): external agents (box, talk), and
 * any tool run over a user's workspace (a terraform plan). One options type, one runner; every caller
 * spawns what `contain()` returns, with its own stdio and process-group handling.
 *
 * On Linux the child runs under bubblewrap (`bwrap`, Debian's `bubblewrap`):
 *
 * - new user, PID, IPC, UTS and cgroup namespaces, a fresh /proc in which only the child's own
 *   processes exist: the parent's /proc/<pid>/environ (the secrets it started with), its open files and
 *   its memory are out of reach, whatever the parent still holds in its environment;
 * - no capabilities, no further user namespaces, a session of its own (no TIOCSTI into our terminal),
 *   killed with the parent;
 * - a file system built from an allowlist, never the host's `/` with holes: the system folders read-only
 *   (/usr, /etc, /opt…, minus the root-only secrets of /etc), a private /tmp, a fresh /dev, its scratch
 *   folder (HOME and working directory) read-write, its own program file, and exactly the extra paths the
 *   caller grants. The user's home, the assistant's config and data, other agents' scratch folders,
 *   /run's sockets, /var, /srv, /mnt and everything else are simply not there;
 * - the network only when the caller says the feature needs it (`--unshare-net` otherwise);
 * - exactly the environment the caller gives (an allowlist plus the secrets it grants), handed to bwrap
 *   through its own environment, never its argument vector (which every local user can read in ps).
 *
 * Where bubblewrap is missing or cannot make namespaces (macOS, a container without user namespaces),
 * `contain` refuses (`sandbox_unavailable`, exit 3) unless the caller passes `unsandboxed` (the user's
 * explicit `--unsandboxed`): then the child runs as a plain process of the user's session (its HOME
 * kept, the scratch folder as working directory) and can read whatever the user can.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, lstatSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { Readable } from 'node:stream';
import { resolveConfigPath } from '../config/load.js';
import { AssistantError, ExitCode } from '../errors.js';
import { OWN_GROUP, signalGroup, stopsWith } from './group.js';
import { isExecutable } from './probe.js';
import { tempRoot } from './temp-root.js';

export interface ContainOptions {
  /** What runs, for messages: `the ACP agent goose`, `terraform plan of workspace prod`. */
  what: string;
  /** The program: an absolute path, or a name looked up on `env.PATH`. */
  command: string;
  args?: readonly string[];
  /** The child's whole environment: an allowlist plus the secrets granted. HOME is set to the scratch folder. */
  env: Record<string, string>;
  /** Whether the child may use the network (an agent talks to its model; a plan refreshes against the cloud). */
  network: boolean;
  /** Paths the child may read (bound read-only at the same place): its install folder, a workspace. */
  readOnly?: readonly string[];
  /** Paths the child may write besides its scratch folder (granted by the user). */
  readWrite?: readonly string[];
  /**
   * The assistant's own config file and data folder: hidden after the grants, so even a granted folder
   * that holds them (a user who grants their whole home) does not show them.
   */
  hidden?: readonly string[];
  /** The working directory: the scratch folder unless given (then it must be one of the granted paths). */
  cwd?: string;
  /**
   * HOME as the child sees it: its scratch folder unless given. A tool that finds its credentials under
   * `~` (terraform's backends: ~/.aws, ~/.terraform.d) keeps the user's HOME path, in which only the
   * granted folders exist.
   */
  home?: string;
  /** The user said `--unsandboxed`: run as a plain process where no sandbox is available. */
  unsandboxed?: boolean;
  /** Where the scratch folder is made (default: the temp directory `env` names, engine/core/process/temp-root.ts). */
  scratchParent?: string;
}

/** What to spawn, and the scratch folder to remove when the child is gone. */
export interface Contained {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The child's private folder (its HOME), removed by dispose(). */
  scratch: string;
  /** false when it runs unsandboxed (`--unsandboxed` where no sandbox is available). */
  contained: boolean;
  /** The program's absolute path, or undefined when it is not on PATH (the caller says so). */
  program?: string;
  /**
   * Starts it, leading its own process group (killGroup), with these stdio pipes. Descriptors this
   * process inherited without close-on-exec (a shell's, a CI runner's) reach the child as /dev/null.
   */
  spawn(stdio: readonly ('pipe' | 'ignore')[]): ChildProcess;
  /** Removes the scratch folder (idempotent). Symlinks the child left there are removed, never followed. */
  dispose(): void;
}

/**
 * What every contained child of one command shares: the user's HOME, the assistant's own config file and
 * data folder (hidden even inside a folder the user grants), and the user's `--unsandboxed`.
 */
export interface SandboxSettings {
  home: string;
  hidden: string[];
  unsandboxed: boolean;
}

export function sandboxSettings(o: { home: string; configPath?: string; unsandboxed?: boolean }): SandboxSettings {
  return { home: o.home, hidden: [resolveConfigPath(o.configPath, o.home), join(o.home, '.assistant')], unsandboxed: Boolean(o.unsandboxed) };
}

/** No sandbox here, and the user did not opt out: nothing was started (exit 3). */
export class SandboxUnavailable extends AssistantError {
  constructor(what: string, why: string) {
    super('sandbox_unavailable', `${what} runs code the assistant did not write and needs a sandbox, but ${why}`, ExitCode.refused, {
      hint: 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) on a Linux host that allows user namespaces, or pass --unsandboxed to run it as a plain process that can read everything you can',
    });
  }
}

/** Top-level folders of the system, bound read-only when present (symlinks such as /bin -> usr/bin are kept as symlinks). */
const SYSTEM_DIRS = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'etc', 'opt', 'nix'];
/** Root-only secrets of the system that /etc would otherwise show: files become empty, folders empty. */
const HIDDEN_SYSTEM_FILES = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers', '/etc/security/opasswd'];
const HIDDEN_SYSTEM_DIRS = ['/etc/ssl/private', '/etc/sudoers.d'];
/** ssh host keys: private halves only. */
const SSH_HOST_KEY = /^ssh_host_.*_key$/;

/** The namespace and privilege flags every contained child gets. */
const ISOLATION = [
  '--unshare-user',
  '--disable-userns',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--new-session',
  '--die-with-parent',
  '--cap-drop',
  'ALL',
];

/** Whether each bwrap found could make a sandbox (asked once per process and path). */
const probes = new Map<string, string | undefined>();

function findBwrap(env: Record<string, string | undefined>): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue; // a relative PATH entry would depend on the working directory
    const path = join(dir, 'bwrap');
    if (isExecutable(path)) return path;
  }
  return undefined;
}

/**
 * Whether a sandbox can be made here: bubblewrap is on PATH and starts a child in the namespaces we ask
 * for (a container without user namespaces fails here, and says why).
 */
export function sandboxAvailability(env: Record<string, string | undefined>): { ok: true; bwrap: string } | { ok: false; why: string } {
  if (process.platform !== 'linux') return { ok: false, why: `this system (${process.platform}) has no bubblewrap` };
  const bwrap = findBwrap(env);
  if (!bwrap) return { ok: false, why: 'bubblewrap (bwrap) is not installed (not found on PATH)' };
  if (!probes.has(bwrap)) {
    const r = spawnSync(bwrap, [...ISOLATION, '--unshare-net', '--ro-bind', '/', '/', '--proc', '/proc', '--', 'true'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000, encoding: 'utf8' });
    const why = r.status === 0 ? undefined : `bubblewrap cannot make a sandbox here (${(r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n')[0]}; are user namespaces allowed?)`;
    probes.set(bwrap, why);
  }
  const why = probes.get(bwrap);
  return why === undefined ? { ok: true, bwrap } : { ok: false, why };
}

/** The program's absolute path: as given when absolute, else the first executable on the child's PATH. */
export function resolveProgram(command: string, env: Record<string, string | undefined>): string {
  if (isAbsolute(command)) return command;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const path = join(dir, command);
    if (isExecutable(path)) return path;
  }
  return command; // not found: the spawn fails with ENOENT and the caller says so
}

const realOrSelf = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** The sandbox's file system: system folders read-only, private /tmp and /dev, then what is granted. */
function fileSystemArgs(granted: { readOnly: string[]; readWrite: string[]; hidden: string[]; scratch: string }): string[] {
  const args: string[] = [];
  for (const name of SYSTEM_DIRS) {
    const path = `/${name}`;
    let st;
    try {
      st = lstatSync(path);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else if (st.isDirectory()) args.push('--ro-bind', path, path);
  }
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--dir', '/var', '--tmpfs', '/var/tmp', '--dir', '/run');
  for (const file of HIDDEN_SYSTEM_FILES) if (existsSync(file)) args.push('--ro-bind', '/dev/null', file);
  for (const dir of HIDDEN_SYSTEM_DIRS) if (isDir(dir)) args.push('--tmpfs', dir);
  if (isDir('/etc/ssh')) for (const f of readdirSync('/etc/ssh')) if (SSH_HOST_KEY.test(f)) args.push('--ro-bind', '/dev/null', `/etc/ssh/${f}`);
  // DNS: /etc/resolv.conf is often a symlink into /run (systemd-resolved), which the sandbox does not show.
  try {
    if (lstatSync('/etc/resolv.conf').isSymbolicLink()) {
      const target = realpathSync('/etc/resolv.conf');
      if (!target.startsWith('/etc/')) args.push('--ro-bind', target, target);
    }
  } catch {
    // no resolv.conf: no DNS, as on the host
  }
  for (const path of granted.readOnly) args.push('--ro-bind', path, path);
  for (const path of granted.readWrite) args.push('--bind', path, path);
  // Only where a grant made them visible: elsewhere they are not in the sandbox at all.
  const shown = [...granted.readOnly, ...granted.readWrite];
  const under = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
  for (const path of granted.hidden) {
    if (!shown.some((g) => under(path, g))) continue;
    args.push(...(isDir(path) ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path]));
  }
  args.push('--bind', granted.scratch, granted.scratch);
  return args;
}

const isDir = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** Granted paths as they are on disk (a symlink is bound at its target too, so it resolves inside); missing ones are left out. */
function grantedPaths(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    if (!isAbsolute(p) || !existsSync(p)) continue;
    out.add(p);
    out.add(realOrSelf(p));
  }
  return [...out];
}

/**
 * The child contained: the command line to spawn (bwrap and its arguments, then the program), its
 * environment (HOME pointing at the scratch folder), and the scratch folder. Throws SandboxUnavailable
 * where no sandbox can be made and the user did not say `--unsandboxed`.
 */
export function contain(opts: ContainOptions): Contained {
  const availability = sandboxAvailability(opts.env);
  if (!availability.ok && !opts.unsandboxed) throw new SandboxUnavailable(opts.what, availability.why);
  const scratch = mkdtempSync(join(opts.scratchParent ?? tempRoot(opts.env), 'assistant-contained-'));
  let disposed = false;
  const dispose = () => {
    if (disposed) return;
    disposed = true;
    rmSync(scratch, { recursive: true, force: true });
  };
  const env: Record<string, string> = { ...opts.env };
  if (availability.ok) {
    env.HOME = opts.home ?? scratch;
    delete env.TMPDIR; // the sandbox's own /tmp
    // Folders of the user's session the sandbox does not show: the child falls back to its HOME.
    for (const name of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR']) delete env[name];
  } else {
    // Unsandboxed (the user's --unsandboxed): a plain process of the user's session, as before.
    env.HOME = opts.home ?? opts.env.HOME ?? scratch;
  }
  const cwd = opts.cwd ?? scratch;
  const program = resolveProgram(opts.command, opts.env);
  const launch = (command: string, args: string[], contained: boolean): Contained => ({
    command,
    args,
    env,
    cwd,
    scratch,
    contained,
    program: isAbsolute(program) ? program : undefined,
    spawn: (stdio) => (contained ? spawnSandbox(command, args, { env, cwd, stdio }) : spawnWithoutLeaks(command, args, { env, cwd, stdio }).child),
    dispose,
  });
  if (!availability.ok) return launch(program, [...(opts.args ?? [])], false);

  const readOnly = grantedPaths([program, ...(opts.readOnly ?? [])]);
  const readWrite = grantedPaths(opts.readWrite ?? []);
  const hidden = grantedPaths(opts.hidden ?? []);
  const args = [...ISOLATION, ...(opts.network ? [] : ['--unshare-net']), ...fileSystemArgs({ readOnly, readWrite, hidden, scratch }), '--chdir', cwd, '--', program, ...(opts.args ?? [])];
  return launch(availability.bwrap, args, true);
}

/** Our descriptors above stderr that a child would inherit: those without close-on-exec (Linux's /proc/self/fdinfo says). */
function inheritableFds(): number[] {
  let fds: number[];
  try {
    fds = readdirSync('/proc/self/fd').map(Number).filter((n) => Number.isInteger(n) && n > 2);
  } catch {
    return []; // no /proc (not Linux): nothing we can see
  }
  return fds.filter((fd) => {
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
      return flags !== undefined && (parseInt(flags, 8) & 0o2000000) === 0; // O_CLOEXEC
    } catch {
      return false; // closed meanwhile (the fd listing itself)
    }
  });
}

interface SpawnOptions {
  env: Record<string, string>;
  cwd: string;
  stdio: readonly ('pipe' | 'ignore')[];
}

/**
 * Starts bwrap told to report its sandbox's first process (`--json-status-fd`), and stops the sandbox
 * by killing that process, which takes the whole PID namespace with it. Signalling bwrap's group is not
 * enough: the sandbox's first process leads a session of its own and, as a namespace's init, ignores
 * SIGTERM from outside; and until bwrap has set the sandbox up its child is not yet bound to die with
 * it, so a bwrap killed then leaves the program running and holding our pipes (a `--timeout` that
 * fired during the setup then never returned).
 */
function spawnSandbox(bwrap: string, args: string[], o: SpawnOptions): ChildProcess {
  const { child, extra } = spawnWithoutLeaks(bwrap, args, o, (fd) => ['--json-status-fd', String(fd)]);
  let init: number | undefined;
  let stopAsked = false;
  const killInit = () => {
    if (init === undefined || child.exitCode !== null || child.signalCode !== null) return; // bwrap gone: so is its sandbox
    try {
      process.kill(init, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  // Only the first report counts: bwrap writes it right after making the sandbox, before the program starts.
  let text = '';
  extra!.setEncoding('utf8');
  extra!.on('data', (chunk: string) => {
    if (init !== undefined) return;
    text += chunk;
    const pid = /"child-pid"\s*:\s*(\d+)/.exec(text)?.[1];
    if (pid === undefined) return;
    init = Number(pid);
    if (stopAsked) killInit();
  });
  extra!.on('error', () => {});
  stopsWith(child, (signal) => {
    stopAsked = true;
    killInit();
    // Before the report, bwrap is left to make the sandbox (killed then, it would orphan it); a SIGKILL
    // (the last resort after the grace period) takes bwrap's group whatever it reported.
    if (init !== undefined || signal === 'SIGKILL') signalGroup(child, signal);
  });
  return child;
}

/**
 * Spawns the program leading its own process group. Our descriptors that it would inherit are replaced
 * by /dev/null; `extraPipe` asks for one more pipe after them, whose number goes into the arguments it
 * returns (prepended).
 */
function spawnWithoutLeaks(command: string, args: string[], o: SpawnOptions, extraPipe?: (fd: number) => string[]): { child: ChildProcess; extra?: Readable } {
  const leaked = inheritableFds();
  const stdio: (string | number)[] = [...o.stdio];
  let devNull: number | undefined;
  if (leaked.length) {
    devNull = openSync('/dev/null', 'r');
    // libuv dup2()s a descriptor given at index n onto n in the child: the inherited one is replaced.
    for (const fd of leaked) {
      while (stdio.length < fd) stdio.push('ignore');
      stdio[fd] = devNull;
    }
  }
  let extraFd: number | undefined;
  if (extraPipe) {
    extraFd = stdio.length;
    stdio.push('pipe');
    args = [...extraPipe(extraFd), ...args];
  }
  try {
    const child = spawn(command, args, { env: o.env, cwd: o.cwd, stdio: stdio as ('pipe' | 'ignore' | number)[], ...OWN_GROUP });
    return { child, extra: extraFd === undefined ? undefined : (child.stdio[extraFd] as Readable) };
  } finally {
    if (devNull !== undefined) closeSync(devNull);
  }
}
