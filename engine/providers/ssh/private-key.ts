/**
 * The private key SSH steps connect with, read from the session's ssh settings; and the ssh provider's
 * preflight (engine/core/capabilities.ts PreflightCapability): before a cluster is paid for, the key
 * that will fetch its kubeconfig must be readable. A module of its own, light: the preflight loads no ssh2.
 */
import { readFileSync } from 'node:fs';
import type { PreflightCapability } from '../../core/capabilities.js';
import { InvalidInputError } from '../../core/errors.js';
import type { SshSettings } from './settings.js';

export function readPrivateKey(settings: SshSettings): Buffer {
  if (!settings.keyPath) {
    throw new InvalidInputError('ssh_key_missing', 'SSH steps need a private key and gpucloud.ssh_key_path is not set', {
      hint: 'set gpucloud.ssh_key_path in ~/.assistant.yaml to the private key of the SSH key your clusters get (default_ssh_key_id)',
    });
  }
  try {
    return readFileSync(settings.keyPath);
  } catch (err) {
    throw new InvalidInputError('ssh_key_missing', `cannot read the SSH private key ${settings.keyPath}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, {
      hint: 'check gpucloud.ssh_key_path',
    });
  }
}

/** The key is readable (the session's client is the ssh settings); its steps merge into the settings' kubeconfig. */
export const sshPreflight: PreflightCapability = {
  check(client) {
    const settings = client as SshSettings;
    readPrivateKey(settings);
    return { kubeconfigPath: settings.kubeconfigPath };
  },
  // The key parser is ssh2's: loaded only when a plan needs the public key.
  publicKey: async (client) => (await import('./remote.js')).publicKeyLine(client as SshSettings),
};
