import { OperationError } from '../../../core/errors.js';
import { registerSecret } from '../../../core/redact.js';
import type { FoundSecret } from '../../../core/kits/cli/secrets.js';
import { PLACEHOLDER_PATTERN } from '../../../../schemas/plan.js';
import { NOT_KNOWN_SAFE, type ArgProblem, type StepClass, type StepVerb } from '../../../core/provider.js';
import { matchTemplate } from '../templates.js';
import { runRemote, SshUnreachable, type SshSettings } from '../remote.js';
import { hostProblem, parseOptions, retryLater, substituteHost } from './common.js';

/**
 * Commands that tear something down, one rule per line, matched on each command of a shell line
 * (split at `;`, `&&`, `||`, `|`, newlines). A free-form command needs --destroyer anyway (default
 * deny); these only say more precisely why.
 */
const DESTRUCTIVE_COMMANDS: readonly { pattern: RegExp; reason: string }[] = [
  { pattern: /^(sudo\s+)?kubeadm\s+reset\b/, reason: 'kubeadm reset tears down the node\'s Kubernetes' },
  { pattern: /^(sudo\s+)?rm\s+(-[a-zA-Z]*[rR]|.*\s-[a-zA-Z]*[rR]|.*--recursive)/, reason: 'rm -r deletes directories' },
  { pattern: /^(sudo\s+)?kubectl\s+(.*\s)?(delete|drain)\b/, reason: 'kubectl delete/drain removes cluster objects or evicts pods' },
  { pattern: /^(sudo\s+)?(mkfs(\.\w+)?|wipefs|shred|fdisk|sfdisk|parted)\b/, reason: 'it formats or wipes a disk' },
  { pattern: /^(sudo\s+)?dd\s+(.*\s)?of=/, reason: 'dd writes over a file or device' },
  { pattern: /^(sudo\s+)?(shutdown|poweroff|halt|reboot)\b/, reason: 'it stops the host' },
  { pattern: /^(sudo\s+)?systemctl\s+(.*\s)?(stop|disable|mask|poweroff|halt|reboot)\b/, reason: 'it stops a service or the host' },
  { pattern: /^(sudo\s+)?(apt-get|apt|yum|dnf)\s+(.*\s)?(remove|purge|autoremove|erase)\b/, reason: 'it uninstalls packages' },
];

/** Splits a shell line into its commands (approximately: enough to find each command's first words). */
function commandsOf(line: string): string[] {
  return line
    .split(/;|&&|\|\||\||\n|`|\$\(/)
    .map((c) => c.trim().replace(/^(\(|\{|!|then\s+|do\s+|else\s+|env\s+(\w+=\S*\s+)*|\w+=\S*\s+)+/, '').trim())
    .filter(Boolean);
}

/**
 * What an ssh-exec command does: a named template (engine/providers/ssh/templates.ts) runs freely with its
 * effect; anything else is free-form and destructive (default deny), with the precise reasons above
 * when a part of it is known to tear something down.
 */
export function classifyCommand(command: string): StepClass {
  const known = matchTemplate(command);
  if (known) return { effect: known.template.effect, kind: 'host', reasons: [] };
  const reasons: string[] = [];
  for (const c of commandsOf(command)) {
    if (/^<[A-Z][A-Z0-9_]*>/.test(c)) reasons.push('the program to run is a placeholder, so what it does is unknown before it runs');
    for (const rule of DESTRUCTIVE_COMMANDS) if (rule.pattern.test(c)) reasons.push(`${c.split(/\s+/).slice(0, 3).join(' ')}: ${rule.reason}`);
  }
  const first = command.split('\n').find((l) => l.trim()) ?? '';
  return {
    effect: 'destroy',
    kind: 'host',
    reasons: [...reasons, `ssh-exec "${first.length > 80 ? `${first.slice(0, 80)}…` : first}"${command.includes('\n') ? ' (a script)' : ''}: ${NOT_KNOWN_SAFE} (a free-form command; only the named read-only templates run without --destroyer)`],
  };
}

/** A value for the shell: single-quoted, so a produced value can never become a second command. */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * `["ssh-exec", "<host>", "<command>", "--timeout=<s>"?, "--interval=<s>"?]`: runs one shell command on
 * the host as root (same key and host-key pinning as ssh-kubeconfig) and captures its output:
 * `{exit_code, stdout, stderr, json?}` (`json` when stdout is a JSON document, for `produces`). A
 * non-zero exit fails the step. Placeholders in the command are substituted shell-quoted. Connection
 * failures are retried until the timeout (a fresh host); the command itself runs once per attempt that
 * connected.
 */
export const sshExec: StepVerb<SshSettings> = {
  verb: 'ssh-exec',

  checkArgs(args) {
    const problems: ArgProblem[] = [];
    if (args.length < 3) return [{ field: 'args', message: 'ssh-exec takes a host, a command and options (--timeout=<s>, --interval=<s>)' }];
    const host = hostProblem(args[1], 'args[1]');
    if (host) problems.push(host);
    if (!args[2]!.trim()) problems.push({ field: 'args[2]', message: 'the command is empty' });
    parseOptions(args, 3, [], problems);
    return problems;
  },

  classify: (args) => classifyCommand(args[2] ?? ''),

  substitute: (args, bindings) =>
    args.map((arg, i) =>
      i === 1 ? substituteHost(arg, bindings) : i === 2 ? arg.replace(PLACEHOLDER_PATTERN, (whole, name: string) => (name in bindings ? shellQuote(bindings[name]!) : whole)) : arg,
    ),

  async run(args, ctx) {
    const [, host, command] = args as [string, string, string];
    const opts = parseOptions(args, 3, []);
    const bad = hostProblem(host, 'host');
    if (bad) throw new OperationError('invalid_host', `ssh-exec: ${bad.message}`);
    // A credential produced earlier (a join token) is masked in the journal, so a resumed run gets `***`
    // back: running with it would only fail on the host, or worse, succeed with the wrong value.
    if (command.includes(`'***'`)) {
      throw new OperationError('secret_not_kept', `the command for ${host} needs a secret produced by an earlier step, and the run journal does not keep secrets`, {
        hint: 'run the plan again with --fresh (the steps of a k8s create kubeadm plan check first whether they are already done)',
      });
    }
    const settings = await ctx.client();
    let out;
    try {
      out = await runRemote(settings, host, command, { signal: ctx.signal, readyTimeoutMs: Math.min(20_000, opts.timeoutS * 1000) });
    } catch (err) {
      if (err instanceof SshUnreachable) return retryLater(ctx, opts, `connecting to ${host}`, err.message);
      throw err;
    }
    const { json, secrets } = parseJsonOutput(out.stdout);
    if (out.exitCode !== 0) {
      const tail = out.stderr.trim().split('\n').slice(-5).join(' | ').slice(0, 500);
      throw new OperationError('remote_command_failed', `the command on ${host} exited with ${out.exitCode ?? 'a signal'}${tail ? `: ${tail}` : ''}`, {
        hint: 'fix the cause on the host; --resume runs this step again',
      });
    }
    return { data: { exit_code: out.exitCode, stdout: out.stdout, stderr: out.stderr, ...(json === undefined ? {} : { json }) }, ...(secrets.length ? { secrets } : {}) };
  },

  describe(args) {
    // A script is shown by its first line here (progress, reports); `detail` shows all of it in dry runs.
    const lines = (args[2] ?? '').split('\n').filter((l) => l.trim() && l.trim() !== 'set -e');
    return `RUN on ${args[1]}: ${lines[0] ?? ''}${lines.length > 1 ? ` … (${lines.length} lines)` : ''}`;
  },

  detail: (args) => args[2],
};

/** stdout as JSON when it is a JSON object or array; secret-named fields are registered so no output shows them. */
function parseJsonOutput(stdout: string): { json: unknown; secrets: FoundSecret[] } {
  const text = stdout.trim();
  if (!/^[[{]/.test(text)) return { json: undefined, secrets: [] };
  try {
    const value = JSON.parse(text) as unknown;
    const secrets: FoundSecret[] = [];
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) if (/token|secret|password|key/i.test(k) && typeof v === 'string') secrets.push({ path: `$.json.${k}`, value: v });
    }
    for (const s of secrets) registerSecret(s.value);
    return { json: value, secrets };
  } catch {
    return { json: undefined, secrets: [] };
  }
}
