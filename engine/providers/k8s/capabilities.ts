/**
 * What k8s can do above running steps: say where its credentials come from (the kubeconfig) and check
 * them. A module of its own so that `credentials` and `onboarding scan` load no step code.
 */
import type { ProviderCapabilities } from '../../core/capabilities.js';
import { k8sCredentials } from './credentials.js';

export const k8sCapabilities: ProviderCapabilities = { credentials: k8sCredentials };
