import { OperationError } from '../../../core/errors.js';
import { mergeContext, rewriteForPublicHost } from '../../../core/kubeconfig/kubeconfig-write.js';
import type { ArgProblem, StepVerb } from '../../../core/provider.js';
import { canonicalHost } from '../known-hosts.js';
import { runRemote, SshUnreachable, type SshSettings } from '../remote.js';
import { hostProblem, parseOptions, retryLater, substituteHost } from './common.js';

const SWITCHES = ['--use-context'] as const;
/** Context names as kubectl writes them (also used for the cluster and user entries). */
const CONTEXT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,252}$/;
const REMOTE_PATH = '/root/.kube/config';

/**
 * `["ssh-kubeconfig", "<host>", "<context>", "--use-context"?, "--timeout=<s>"?, "--interval=<s>"?]`:
 * reads /root/.kube/config from the host over SSH (root, gpucloud.ssh_key_path, pinned host key),
 * points its server at the host's public address with `tls-server-name` keeping TLS verified, and
 * merges it into the local kubeconfig as context `<context>` (engine/core/kubeconfig/kubeconfig-write.ts). A host
 * that is not accepting connections yet, or has no kubeconfig yet, is tried again until the timeout.
 */
export const sshKubeconfig: StepVerb<SshSettings> = {
  verb: 'ssh-kubeconfig',

  checkArgs(args) {
    const problems: ArgProblem[] = [];
    if (args.length < 3) return [{ field: 'args', message: 'ssh-kubeconfig takes a host, a context name and options (--use-context, --timeout=<s>, --interval=<s>)' }];
    const host = hostProblem(args[1], 'args[1]');
    if (host) problems.push(host);
    if (!CONTEXT_NAME.test(args[2]!)) problems.push({ field: 'args[2]', message: `"${args[2]}" is not a usable context name (letters, digits, . _ @ : -)` });
    parseOptions(args, 3, SWITCHES, problems);
    return problems;
  },

  // It reads a remote file and merges it, sanitised (engine/core/kubeconfig/sanitise.ts), into the kubeconfig; nothing is paid for or removed.
  classify: () => ({ effect: 'update', kind: 'kubeconfig', reasons: [] }),

  substitute: (args, bindings) => args.map((arg, i) => (i === 1 ? substituteHost(arg, bindings) : arg)),

  async run(args, ctx) {
    const [, host, name] = args as [string, string, string];
    const opts = parseOptions(args, 3, SWITCHES);
    const bad = hostProblem(host, 'host');
    if (bad) throw new OperationError('invalid_host', `ssh-kubeconfig: ${bad.message}`);
    const settings = await ctx.client();
    let out;
    try {
      out = await runRemote(settings, host, `cat ${REMOTE_PATH}`, { signal: ctx.signal, readyTimeoutMs: Math.min(20_000, opts.timeoutS * 1000) });
    } catch (err) {
      if (err instanceof SshUnreachable) return retryLater(ctx, opts, `connecting to ${host}`, err.message);
      throw err;
    }
    if (out.exitCode !== 0) {
      // A fresh head node writes its kubeconfig once Kubernetes is initialised, after sshd is up.
      if (/no such file/i.test(out.stderr)) return retryLater(ctx, opts, `reading ${REMOTE_PATH} on ${host}`, 'not there yet');
      throw new OperationError('kubeconfig_unreadable', `cat ${REMOTE_PATH} on ${host} exited with ${out.exitCode}: ${out.stderr.trim().slice(0, 300)}`);
    }
    const pub = rewriteForPublicHost(out.stdout, canonicalHost(host));
    const merged = await mergeContext(settings.kubeconfigPath, name, pub, { useContext: opts.flags.has('--use-context') });
    // What the report shows: where it went and how it connects, never the credentials.
    return {
      data: {
        context: name,
        kubeconfig: merged.path,
        server: pub.server,
        tls_server_name: pub.tlsServerName ?? null,
        current_context: merged.currentContext,
        replaced: merged.replaced,
        host_key: `${out.hostKey.key.type} ${out.hostKey.key.fingerprint}`,
      },
    };
  },

  describe(args) {
    return `FETCH kubeconfig from ${args[1]} over SSH as context ${args[2]}${args.includes('--use-context') ? ' (current context)' : ''}`;
  },
};
