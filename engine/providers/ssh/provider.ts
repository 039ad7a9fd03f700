/**
 * The `ssh` provider: steps that run on a host over SSH (engine/providers/ssh/verbs/): `ssh-kubeconfig` fetches a
 * cluster's kubeconfig into the local one, `ssh-exec` runs one command. Its "client" is the resolved
 * settings (key, port, known_hosts, kubeconfig path); each step opens and closes its own connection.
 */
import type { Provider, StepPrice } from '../../core/provider.js';
import { kubeconfigPathFor } from '../../core/kubeconfig/kubeconfig-write.js';
import { expandHome } from '../../core/kubeconfig/kubeconfig.js';
import { sshCapabilities } from './capabilities.js';
import { knownHostsPath } from './known-hosts.js';
import type { SshSettings } from './remote.js';
import { sshExec } from './verbs/exec.js';
import { autostopReadClass } from '../../core/kits/autostop/template.js';
import { sshKubeconfig } from './verbs/kubeconfig.js';

export function sshSettingsFor(opts: { config: import('../../../schemas/config.js').Config; env: Record<string, string | undefined>; home: string }, notice: (m: string) => void = () => undefined): SshSettings {
  const keyPath = opts.config.gpucloud?.ssh_key_path?.trim();
  return {
    home: opts.home,
    keyPath: keyPath ? expandHome(keyPath, opts.home) : undefined,
    port: opts.config.gpucloud?.ssh_port ?? 22,
    knownHostsFile: knownHostsPath(opts.home),
    kubeconfigPath: kubeconfigPathFor(opts.config, opts.env, opts.home),
    notice,
  };
}

export const sshProvider: Provider<SshSettings> = {
  name: 'ssh',
  // ssh-exec, plus the auto-stop watcher's read as a read-only template (engine/core/kits/autostop/template.ts).
  verbs: [sshKubeconfig, { ...sshExec, classify: (args) => autostopReadClass(args[2] ?? '') ?? sshExec.classify(args) }],
  capabilities: sshCapabilities,
  // Priced or refused (DESIGN §8): a command of the allowlist runs on a host that exists and makes
  // nothing the cloud bills; a free-form command (destructive, --destroyer) could do anything.
  async preview(steps) {
    const changes: StepPrice[] = steps
      .filter((s) => s.class.effect !== 'read')
      .map((s) => ({
        step: s.index,
        price: s.class.effect === 'destroy' ? { price: 'unpriced', why: 'a free-form command over SSH may do anything, bill included' } : { price: 'free', why: `a known command on a host that exists (${s.class.kind ?? 'host'}): nothing new bills` },
      }));
    return { changes, warnings: [] };
  },
  async connect(opts) {
    const settings = sshSettingsFor(opts, (m) => opts.warn?.(m));
    settings.debug = opts.debug;
    return { client: settings, source: settings.keyPath ? `key ${settings.keyPath}` : 'no key configured (gpucloud.ssh_key_path)' };
  },
};
