/**
 * ssh's `credentials` capability: the private key for cluster head nodes (gpucloud.ssh_key_path, the key
 * of gpucloud.default_ssh_key_id), and how to make one when there is none.
 */
import { join } from 'node:path';
import type { CredentialsCapability } from '../../core/capabilities.js';
import { configKey, fileExists, markUsed, tidyPath } from '../../core/credential-sources.js';
import { expandHome } from '../../core/home-path.js';

export const sshCredentials: CredentialsCapability = {
  sources: (input) => {
    const keyPath = input.config.gpucloud?.ssh_key_path?.trim();
    const path = keyPath ? expandHome(keyPath, input.home) : undefined;
    return markUsed([
      {
        kind: 'config',
        where: `${configKey(input, ['gpucloud.ssh_key_path'])}${path ? ` (${tidyPath(path, input.home)})` : ''}`,
        present: Boolean(path && fileExists(path)),
        ...(path && !fileExists(path) ? { note: 'the key file does not exist' } : {}),
      },
    ]);
  },
  scan: {
    title: 'ssh (cluster head nodes)',
    setup: (input) => {
      const key = ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((k) => join(input.home, '.ssh', k)).find(fileExists);
      return [
        key
          ? { why: `ssh: add "ssh_key_path: ${tidyPath(key, input.home)}" under "gpucloud:" in ${tidyPath(input.configPath, input.home)} (the key of gpucloud.default_ssh_key_id)` }
          : { why: 'ssh: make a key pair for cluster head nodes, then set gpucloud.ssh_key_path to it', command: `ssh-keygen -t ed25519 -f ${input.os === 'windows' ? '%USERPROFILE%\\.ssh\\id_ed25519' : '~/.ssh/id_ed25519'}` },
      ];
    },
  },
};
