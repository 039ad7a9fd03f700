/**
 * What ssh can do above running steps: say where its key comes from. A module of its own so that
 * `credentials` and `onboarding scan` load neither ssh2 nor any step code.
 */
import type { ProviderCapabilities } from '../../core/capabilities.js';
import { sshCredentials } from './credentials.js';

export const sshCapabilities: ProviderCapabilities = { credentials: sshCredentials };
