/** The public half of the SSH steps' key, for machines that get it at boot (cloud_a's kubeadm machines). Loads ssh2. */
import ssh2 from 'ssh2';
import { InvalidInputError } from '../../core/errors.js';
import { readPrivateKey } from './private-key.js';
import type { SshSettings } from './settings.js';

/**
 * The OpenSSH public key line (`ssh-ed25519 AAAA…`) of the configured private key: what a machine that
 * has no key registry of its own gets in root's authorized_keys, so the SSH steps can log in.
 */
export function publicKeyLine(settings: SshSettings): string {
  const parsed = ssh2.utils.parseKey(readPrivateKey(settings));
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) {
    throw new InvalidInputError('ssh_key_unreadable', `cannot read the SSH private key ${settings.keyPath}: ${key instanceof Error ? key.message : 'no key in the file'}`, {
      hint: 'gpucloud.ssh_key_path must name an unencrypted OpenSSH or PEM private key',
    });
  }
  return `${key.type} ${key.getPublicSSH().toString('base64')}`;
}
