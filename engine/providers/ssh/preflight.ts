/**
 * The ssh provider's preflight (engine/core/capabilities.ts PreflightCapability): before a cluster is paid
 * for, the key that will fetch its kubeconfig must be readable; and the public key line of that key, for
 * machines made without a key registry. Light: ssh2 (the key parser) loads only when the line is asked for.
 */
import type { PreflightCapability } from '../../core/capabilities.js';
import { readPrivateKey } from './private-key.js';
import type { SshSettings } from './settings.js';

/** The key is readable (the session's client is the ssh settings); its steps merge into the settings' kubeconfig. */
export const sshPreflight: PreflightCapability = {
  check(client) {
    const settings = client as SshSettings;
    readPrivateKey(settings);
    return { kubeconfigPath: settings.kubeconfigPath };
  },
  // The key parser is ssh2's: loaded only when a plan needs the public key.
  publicKey: async (client) => (await import('./public-key.js')).publicKeyLine(client as SshSettings),
};
