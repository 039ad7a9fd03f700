/**
 * `k8s ask "<question>"`: the ask flow (machines/ask-flow.ts: summarisation, streaming, the built-in
 * provider answering without a model) over a read-only context plan of one cluster: nodes, pods,
 * deployments, services and events. The conversation is kept per AI profile and cluster (context).
 */
import { ConversationHistory } from '../engine/producers/ai/history.js';
import { profileForCommand, resolveAiProvider } from '../engine/producers/ai/resolve.js';
import { answerK8s, K8S_SYSTEM_PROMPT } from '../engine/providers/k8s/answer.js';
import { askContextPlan } from '../engine/providers/k8s/plans.js';
import { createRedactingStream, maskSecretLooking, maskSecretsInText } from '../engine/core/redact.js';
import type { AskBackend, AskOptions, AskResult } from './ask.js';
import { runAskFlow } from './ask-flow.js';
import { readPlan } from './apply/reads.js';

export interface ClusterAskOptions extends Omit<AskOptions, 'providerFlags' | 'backend'> {
  backend: AskBackend;
  context: string;
  /** undefined: every namespace. */
  namespace?: string;
}

export async function askCluster(o: ClusterAskOptions): Promise<AskResult> {
  const { config } = o.backend;
  const profileName = profileForCommand(o.aiProfile, o.sandbox, config.ai);
  const where = `cluster ${o.context}${o.namespace ? `, namespace ${o.namespace}` : ', all namespaces'}`;
  let history: ConversationHistory | undefined;
  const stream = o.onToken && createRedactingStream(o.onToken);
  const out = await runAskFlow(
    {
      question: o.question,
      route: () => ({ providers: ['k8s'], reasons: [{ provider: 'k8s', terms: [], note: `k8s ask (${where})` }], kinds: [], defaulted: false }),
      provider: () => {
        const provider = resolveAiProvider({ aiConfig: config.ai, profileName, modelOverrides: o.modelOverrides, keyFlags: o.keyFlags, env: o.env, policy: o.aiPolicy, debug: o.debug });
        if (o.history !== false && provider.name !== 'builtin') {
          // One conversation per cluster: a follow-up about "that pod" means this cluster's pod.
          history = new ConversationHistory(o.home, provider.profile, `k8s:${o.context}`);
          if (o.newConversation) history.clear();
        }
        return provider;
      },
      contextPlan: () => askContextPlan(o.context, o.namespace),
      runReadPlan: async (plan) => maskSecretLooking(await readPlan(o.backend, plan, { signal: o.signal })),
      ai: config.ai,
      history: () => history?.messages() ?? [],
      onToken: stream && ((t) => stream.write(t)),
      onProgress: o.onProgress,
      signal: o.signal,
      source: { systemPrompt: K8S_SYSTEM_PROMPT, label: `Kubernetes ${where}`, builtinAnswer: (q, results) => answerK8s(q, results, `Cluster ${o.context}${o.namespace ? ` (namespace ${o.namespace})` : ''}`) },
    },
    { onTransition: (from, to) => o.trace?.(`${from} -> ${to}`) },
  ).finally(() => stream?.end());
  o.debug?.(`k8s ask: ${where}; context ${out.contextChars} characters, summarised: ${out.summarised ? 'yes' : 'no'}, provider ${out.provider}`);
  const answer = maskSecretsInText(out.answer);
  history?.append(o.question, answer);
  const { sizes: _s, summaryCalls: _c, ...result } = out;
  return { ...result, answer };
}
