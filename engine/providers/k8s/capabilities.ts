/**
 * What k8s can do above running steps: say where its credentials come from (the kubeconfig) and check
 * them, and answer questions about one cluster (`k8s ask`: its context reads, the model's instructions
 * and the built-in answer). A module of its own so that `credentials` and `onboarding scan` load no step code.
 */
import type { ProviderCapabilities } from '../../core/capabilities.js';
import { answerK8s, K8S_SYSTEM_PROMPT } from './answer.js';
import { k8sCredentials } from './credentials.js';
import { askContextPlan } from './plans.js';

export const k8sCapabilities: ProviderCapabilities = {
  credentials: k8sCredentials,
  clusterAsk: { system: K8S_SYSTEM_PROMPT, contextReads: askContextPlan, answer: answerK8s },
};
