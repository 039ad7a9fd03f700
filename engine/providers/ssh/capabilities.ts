/**
 * What ssh can do above running steps: say where its key comes from, and check before a cluster is paid
 * for that the key is readable. A module of its own so that `credentials`, `onboarding scan` and `k8s
 * create` load neither ssh2 nor any step code.
 */
import type { ProviderCapabilities } from '../../core/capabilities.js';
import { sshCredentials } from './credentials.js';
import { sshPreflight } from './preflight.js';

export const sshCapabilities: ProviderCapabilities = { credentials: sshCredentials, preflight: sshPreflight };
