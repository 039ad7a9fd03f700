/**
 * The private key SSH steps connect with, read from the session's ssh settings. A module of its own,
 * light: the preflight (preflight.ts) checks it without loading ssh2.
 */
import { readFileSync } from 'node:fs';
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
